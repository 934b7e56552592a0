export * from './event-envelope';
export * from './run-events';
export * from './topics';
export * from './organization-events';
export * from './run-event-validation';
