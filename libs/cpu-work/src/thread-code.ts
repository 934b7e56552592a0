/**
 * Whether this lib runs as the built JavaScript a worker thread can load. Under ts-jest it is
 * TypeScript, which a thread cannot load: the tests that start the service in-process then run
 * the tasks on the event loop (CpuWork).
 */
export const threadsCanLoadThisCode = (): boolean => __filename.endsWith('.js');
