export * from './run-command-handler';
