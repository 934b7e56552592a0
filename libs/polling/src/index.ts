export * from './poller';
export * from './loop-health';
