export * from './infrastructure.module';
export * from './run-worker';
export * from './adapters';
export * from './readiness';
