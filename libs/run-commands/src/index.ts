export * from './command-context';
export * from './run-snapshot';
export * from './apply-run-command';
export * from './apply-run-command.handler';
export * from './load-run.query';
export * from './run-commands.module';
