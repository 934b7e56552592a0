export * from './cpu-work';
export * from './duplicate-rows-finder';
export * from './problem-counter';
export * from './source-inspector';
export * from './source-arrival';
export * from './arriving-scans';
export * from './rows-shared-out';
export { STOPS_ITSELF, type CpuTaskName } from './cpu-tasks';
export * from './thread-out-of-memory';
