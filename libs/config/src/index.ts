export * from './app-config';
export * from './secrets-keyring';
