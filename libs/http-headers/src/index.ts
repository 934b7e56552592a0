export * from './retry-after';
export * from './retry-delay';
