export * from './cpu-work';
export * from './duplicate-rows-finder';
