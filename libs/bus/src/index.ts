export * from './message-bus.port';
export * from './in-process/in-process-bus';
// The Kafka adapters are imported by path (@app/bus/kafka/...) where they are chosen,
// so that embedded mode never loads kafkajs.
