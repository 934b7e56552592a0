export * from './webhook-sender';
export * from './test-event';
export * from './webhook-sending.module';
export * from './hidden-secrets';
