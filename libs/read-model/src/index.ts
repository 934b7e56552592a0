export * from './read-model.port';
export * from './sqlite/sqlite-read-model';
