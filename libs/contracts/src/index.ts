export * from './event-envelope';
export * from './json-object';
export * from './run-events';
export * from './topics';
export * from './organization-events';
export * from './run-event-validation';
