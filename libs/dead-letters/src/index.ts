export * from './dead-letters.port';
export * from './sqlite/sqlite-dead-letter-store';
// The MongoDB adapter is imported by path (@app/dead-letters/mongo/...) where it is chosen.
