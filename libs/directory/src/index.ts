export * from './directory.port';
export * from './sqlite/sqlite-directory';
export * from './secrets/secret-cipher';
// The MongoDB adapter is imported by path (@app/directory/mongo/...) where it is chosen,
// so that embedded mode never loads mongoose.
