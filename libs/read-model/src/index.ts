export * from './read-model.port';
export * from './sqlite/sqlite-read-model';
export * from './mongo/mongo-read-model';
