import { Logger } from '@nestjs/common';
import {
  type Admin,
  type Consumer,
  type ITopicConfig,
  Kafka,
  type KafkaConfig,
  type Producer,
  type SASLOptions,
  Partitioners,
  logLevel,
  type LogEntry,
} from 'kafkajs';
import { readFileSync } from 'node:fs';
import { TOPICS, type StoredEvent } from '@app/contracts';
import type { BusRecord, BusSubscription, LaneLag, MessageBus, RecordHandler } from '../message-bus.port';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** Partitions of topics this bus creates (a run's events share one, by key). */
  partitions?: number;
  replicationFactor?: number;
  /** How long topics this bus creates keep records (ms; -1: for ever). */
  retentionMs?: number;
  ssl?: false | { caFile: string | null };
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | null;
  /** How long the group waits for a silent member before evicting it (kafkajs's default: 30 s). */
  sessionTimeoutMs?: number;
}

/** The kafkajs client settings: brokers, TLS (with a private CA when given) and SASL. */
export function kafkaClientConfig(options: KafkaBusOptions): KafkaConfig {
  return {
    clientId: options.clientId,
    brokers: options.brokers,
    logCreator: nestLogCreator,
    ...(options.ssl ? { ssl: options.ssl.caFile ? { ca: [readFileSync(options.ssl.caFile, 'utf8')] } : true } : {}),
    // kafkajs types SASL as a union per mechanism; ours has the same fields for the three.
    ...(options.sasl ? { sasl: options.sasl as SASLOptions } : {}),
  };
}

/**
 * A topic as we create it: partitions, replication, retention, and with replicas a
 * min.insync.replicas of one less than the replication factor (acks=all then survives one
 * broker down, and a write is on two brokers before it is acknowledged).
 */
export function topicSpec(topic: string, options: KafkaBusOptions): ITopicConfig {
  const replicationFactor = options.replicationFactor ?? 1;
  return {
    topic,
    numPartitions: options.partitions ?? 6,
    replicationFactor,
    configEntries: [
      { name: 'retention.ms', value: String(RETENTION_OVERRIDES[topic] ?? options.retentionMs ?? 30 * 24 * 3600 * 1000) },
      { name: 'min.insync.replicas', value: String(Math.max(1, replicationFactor - 1)) },
    ],
  };
}

/** See the consumer's rebalanceTimeout below. */
const REBALANCE_TIMEOUT_MS = 300_000;

/** Well inside the shortest session timeout brokers allow (6 s, group.min.session.timeout.ms). */
const HEARTBEAT_DURING_WORK_MS = 2_000;

/** Dead letters are kept until an operator has dealt with them. */
const RETENTION_OVERRIDES: Record<string, number> = { [TOPICS.runEventDeadLetters]: -1 };

const NOT_ALLOWED = new Set(['TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED', 'POLICY_VIOLATION']);

/**
 * Creates the topic when it does not exist. A client without the right to create topics
 * (a locked-down cluster, where operators create them) checks that the topic exists
 * instead, and says which topic to create when it does not.
 */
export async function ensureTopicExists(admin: Pick<Admin, 'createTopics' | 'fetchTopicMetadata'>, spec: ITopicConfig): Promise<void> {
  try {
    await admin.createTopics({ waitForLeaders: true, topics: [spec] });
  } catch (err) {
    // kafkajs reports createTopics failures as a KafkaJSAggregateError: the types are per topic, in `errors`.
    const { type, errors = [] } = err as { type?: string; errors?: Array<{ type?: string }> };
    const types = [type, ...errors.map((e) => e.type)].filter((t): t is string => !!t);
    if (types.length === 0 || !types.every((t) => NOT_ALLOWED.has(t))) throw err;
    try {
      await admin.fetchTopicMetadata({ topics: [spec.topic] });
    } catch {
      throw new Error(
        `Kafka topic ${spec.topic} does not exist and this client may not create it: create it with ` +
          `${spec.numPartitions} partitions (docs/operations.md, "Kafka topics").`,
      );
    }
  }
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
  // W3C trace context (tracing on): the standard header names, so Kafka tooling sees the trace too.
  ...(e.metadata.traceparent ? { traceparent: e.metadata.traceparent } : {}),
  ...(e.metadata.tracestate ? { tracestate: e.metadata.tracestate } : {}),
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
    this.kafka = new Kafka(kafkaClientConfig(options));
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const p = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
      await p.connect();
      return p;
    })();
    return this.producer;
  }

  /** Creates the topic if it does not exist yet (no-op when it does; checked only, without the right to create). */
  async ensureTopic(topic: string): Promise<void> {
    if (this.knownTopics.has(topic)) return;
    this.admin ??= (async () => {
      const a = this.kafka.admin();
      await a.connect();
      return a;
    })();
    await ensureTopicExists(await this.admin, topicSpec(topic, this.options));
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
    const consumer = this.kafka.consumer({
      groupId,
      retry: { initialRetryTime: 100, maxRetryTime: 5000, retries: 8 },
      // A rebalance waits this long for members to finish their message. Long steps are claimed and
      // run outside the handler (ClaimedSteps), but a handler may wait for a free step slot.
      rebalanceTimeout: REBALANCE_TIMEOUT_MS,
      ...(this.options.sessionTimeoutMs ? { sessionTimeout: this.options.sessionTimeoutMs } : {}),
    });
    // kafkajs restarts a consumer after a retriable crash by itself; one it does not restart, or a stop, is the end of it.
    let running = true;
    consumer.on(consumer.events.CRASH, (e) => {
      if (!e.payload.restart) running = false;
    });
    consumer.on(consumer.events.STOP, () => {
      running = false;
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    this.consumers.add(consumer);
    await consumer.run({
      autoCommit: false,
      eachMessage: async (payload) => {
        const { topic: t, partition, message } = payload;
        if (!message.value) return; // a tombstone: nothing to handle
        const value = JSON.parse(message.value.toString('utf8')) as StoredEvent;
        // kafkajs heartbeats only between messages: a handler that takes longer than the session
        // timeout (waiting for a free step slot, a slow store) would get the consumer evicted and
        // its partition handed to another replica. Beat while it works.
        const beating = setInterval(() => void payload.heartbeat().catch(() => undefined), HEARTBEAT_DURING_WORK_MS);
        try {
          await handler({ key: message.key?.toString('utf8') ?? value.stream_id, value, lane: String(partition) });
        } finally {
          clearInterval(beating);
        }
        await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      },
    });
    return {
      running: () => running,
      stop: async () => {
        running = false;
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async consumerLag(topic: string, groupId: string): Promise<LaneLag[]> {
    await this.ensureTopic(topic);
    const admin = await this.admin!;
    const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const done = new Map((committed.find((c) => c.topic === topic)?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return ends.map(({ partition, high, low }) => {
      // -1: the group has committed nothing in this partition yet; it starts from the beginning.
      const at = done.get(partition) ?? -1;
      return { lane: String(partition), behind: Math.max(0, Number(high) - (at < 0 ? Number(low) : at)) };
    });
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
