export * from './event-relay';
