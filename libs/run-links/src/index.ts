export * from './run-links';
export * from './bounded-cache';
