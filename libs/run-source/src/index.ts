export * from './mapped-rows';
export * from './write-output';
export * from './inspect-structured-file';
export * from './count-problems';
export * from './find-problem-rows';
export * from './distinct-values';
export * from './duplicate-values';
export * from './problem-segments';
