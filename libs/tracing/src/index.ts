export * from './trace-context';
export { tracingWanted } from './tracing-env';
