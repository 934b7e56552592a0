export * from './event-consumer';
export * from './consumer-host';
export * from './consumer-registry';
export * from './projection-waiter';
export * from './command-context';
