export * from './run-links';
