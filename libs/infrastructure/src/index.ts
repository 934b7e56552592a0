export * from './infrastructure.module';
export * from './tokens';
export * from './run-worker';
export * from './relay-runtime';
export * from './adapters';
export * from './cpu-work/cpu-work';
