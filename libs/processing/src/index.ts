export * from './event-consumer';
export * from './consumer-host';
