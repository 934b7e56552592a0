export * from './retry-after';
