export * from './event-store.port';
export * from './sqlite/sqlite-event-store';
export * from './sqlite/open-sqlite';
// The EventStoreDB adapter is imported by path (@app/event-store/eventstoredb/...) where it is chosen,
// so that embedded mode never loads its client.
