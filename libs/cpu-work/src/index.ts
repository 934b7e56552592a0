export * from './cpu-work';
