export * from './event-store.port';
export * from './sqlite/sqlite-event-store';
export * from './sqlite/open-sqlite';
export * from './eventstoredb/eventstoredb-event-store';
