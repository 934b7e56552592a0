export * from './read-model.port';
export * from './sqlite/sqlite-read-model';
// The MongoDB adapter is imported by path (@app/read-model/mongo/...) where it is chosen,
// so that embedded mode never loads mongoose.
export * from './projection-waiter';
