export * from './event-store.port';
export * from './sqlite/sqlite-event-store';
// The EventStoreDB adapter is imported by path (@app/event-store/eventstoredb/...) where it is chosen,
// so that embedded mode never loads its client.
