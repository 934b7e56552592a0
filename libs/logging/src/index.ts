export * from './logger-params';
export * from './redact-url';
export * from './log-context';
