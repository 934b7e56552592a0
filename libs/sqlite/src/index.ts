export * from './open-sqlite';
export * from './add-missing-columns';
export * from './prepared-statements';
export * from './read-snapshot';
