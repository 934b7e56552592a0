export * from './accounts.port';
export * from './sqlite/sqlite-account-store';
// The MongoDB adapter is imported by path (@app/accounts/mongo/...) where it is chosen.
