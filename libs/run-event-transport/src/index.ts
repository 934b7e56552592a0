export * from './consumer-checkpoints';
export * from './throttle';
export * from './run-step';
export * from './run-event.context';
export * from './run-events.server';
export * from './pass-errors-to-transport.filter';
export * from './error-classification';
export * from './claimed-steps';
