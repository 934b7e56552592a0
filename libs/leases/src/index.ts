export * from './leases.port';
export * from './sqlite/sqlite-lease-store';
// The MongoDB adapter is imported by path (@app/leases/mongo/...) where it is chosen.
export * from './leader-lease';
export * from './held-lease';
export * from './upload-lease';
