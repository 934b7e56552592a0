export * from './logger-params';
export * from './redact-url';
export * from './log-context';
export * from './access-log';
export * from './log-destination';
export * from './log-fields';
export * from './config-or-exit';
