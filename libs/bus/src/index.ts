export * from './message-bus.port';
export * from './in-process/in-process-bus';
export * from './relay/event-relay';
export * from './kafka/kafka-bus';
export * from './kafka/kafka-bucket-notifications';
