import { Logger } from '@nestjs/common';
import { type Admin, type Consumer, Kafka, type Producer, Partitioners, logLevel, type LogEntry } from 'kafkajs';
import type { StoredEvent } from '@app/contracts';
import type { BusRecord, BusSubscription, MessageBus, RecordHandler } from '../message-bus.port';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** Partitions of topics this bus creates (a run's events share one, by key). */
  partitions?: number;
  replicationFactor?: number;
}

/** kafkajs logs through Nest's logger, so every app's log lines look the same. */
export const nestLogCreator = () => {
  const logger = new Logger('kafkajs');
  return ({ level, log }: LogEntry) => {
    const { message, ...extra } = log;
    const line = `${message} ${JSON.stringify(extra)}`;
    if (level === logLevel.ERROR) logger.error(line);
    else if (level === logLevel.WARN) logger.warn(line);
    else logger.debug(line);
  };
};

/** Headers let consumers route without parsing the value (see docs/events.md). */
export const recordHeaders = (e: StoredEvent): Record<string, string> => ({
  'content-type': 'application/json',
  event_id: e.event_id,
  event_type: e.type,
  schema_version: String(e.metadata.schema_version),
  organization_id: e.metadata.organization_id,
});

/**
 * The bus on Kafka. Records are keyed by stream (run) id, so one run's events share a
 * partition and keep their order. The producer is idempotent (acks from all in-sync
 * replicas, one request in flight), so a retried send neither duplicates nor reorders.
 * Each subscription is its own consumer group; an offset is committed only after the
 * handler returned, i.e. after the consumer's work (and its checkpoint) is durable. A
 * handler that throws makes kafkajs fetch the same offset again after its retry back-off,
 * before any later record of that partition. Records carry their partition as `lane`.
 */
export class KafkaBus implements MessageBus {
  private readonly kafka: Kafka;
  private producer: Promise<Producer> | null = null;
  private admin: Promise<Admin> | null = null;
  private readonly knownTopics = new Set<string>();
  private readonly consumers = new Set<Consumer>();

  constructor(private readonly options: KafkaBusOptions) {
    this.kafka = new Kafka({ clientId: options.clientId, brokers: options.brokers, logCreator: nestLogCreator });
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const p = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
      await p.connect();
      return p;
    })();
    return this.producer;
  }

  /** Creates the topic if it does not exist yet (no-op when it does). */
  async ensureTopic(topic: string): Promise<void> {
    if (this.knownTopics.has(topic)) return;
    this.admin ??= (async () => {
      const a = this.kafka.admin();
      await a.connect();
      return a;
    })();
    const admin = await this.admin;
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: this.options.partitions ?? 6, replicationFactor: this.options.replicationFactor ?? 1 }],
    });
    this.knownTopics.add(topic);
  }

  async publish(topic: string, records: BusRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.ensureTopic(topic);
    const producer = await this.connectedProducer();
    await producer.send({
      topic,
      acks: -1,
      messages: records.map((r) => ({ key: r.key, value: JSON.stringify(r.value), headers: { ...recordHeaders(r.value), ...r.headers } })),
    });
  }

  async subscribe(topic: string, groupId: string, handler: RecordHandler): Promise<BusSubscription> {
    await this.ensureTopic(topic);
    const consumer = this.kafka.consumer({ groupId, retry: { initialRetryTime: 100, maxRetryTime: 5000, retries: 8 } });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    this.consumers.add(consumer);
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic: t, partition, message }) => {
        if (!message.value) return; // a tombstone: nothing to handle
        const value = JSON.parse(message.value.toString('utf8')) as StoredEvent;
        await handler({ key: message.key?.toString('utf8') ?? value.stream_id, value, lane: String(partition) });
        await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      },
    });
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    if (this.producer) await (await this.producer).disconnect();
    if (this.admin) await (await this.admin).disconnect();
    this.producer = null;
    this.admin = null;
  }
}
