import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type KafkaSettings } from '@app/config';
import { ensureTopicExists, kafkaClientConfig, topicSpec } from './kafka-bus';

const kafkaEnv = (extra: Record<string, string>) =>
  loadConfig({ BUS: 'kafka', KAFKA_BROKERS: 'b1:9093,b2:9093', NODE_ENV: 'test', ...extra }).bus as KafkaSettings;

describe('Kafka client settings (secured clusters)', () => {
  it('TLS with a private CA and SASL SCRAM come from the environment', () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'kafka-ca-')), 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const settings = kafkaEnv({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: ca,
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'svc',
      KAFKA_SASL_PASSWORD: 'pw',
    });
    const client = kafkaClientConfig(settings);
    expect(client).toMatchObject({
      brokers: ['b1:9093', 'b2:9093'],
      ssl: { ca: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'] },
      sasl: { mechanism: 'scram-sha-512', username: 'svc', password: 'pw' },
    });
  });

  it('plaintext by default; TLS with the system CAs when no file is named', () => {
    expect(kafkaClientConfig(kafkaEnv({}))).not.toHaveProperty('ssl');
    expect(kafkaClientConfig(kafkaEnv({})).sasl).toBeUndefined();
    expect(kafkaClientConfig(kafkaEnv({ KAFKA_SSL: 'true' })).ssl).toBe(true);
  });

  it('refuses an unknown mechanism, or SASL without credentials, at start', () => {
    expect(() => kafkaEnv({ KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(
      /KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512/,
    );
    expect(() => kafkaEnv({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u' })).toThrow(/needs KAFKA_SASL_PASSWORD/);
    expect(() => kafkaEnv({ KAFKA_SSL: 'yes' })).toThrow(/KAFKA_SSL must be true or false/);
  });
});

describe('Kafka topics', () => {
  it('are created with their partitions, a retention, and min.insync.replicas one below the replication factor', () => {
    expect(topicSpec('t', { brokers: [], clientId: 'c', partitions: 12, replicationFactor: 3, retentionMs: 1000 })).toEqual({
      topic: 't',
      numPartitions: 12,
      replicationFactor: 3,
      configEntries: [
        { name: 'retention.ms', value: '1000' },
        { name: 'min.insync.replicas', value: '2' },
      ],
    });
    expect(topicSpec('t', { brokers: [], clientId: 'c' }).configEntries).toContainEqual({ name: 'min.insync.replicas', value: '1' });
    // Dead letters are kept until someone deals with them.
    expect(topicSpec('transformation.run.events.dlq.v1', { brokers: [], clientId: 'c', retentionMs: 1000 }).configEntries).toContainEqual({
      name: 'retention.ms',
      value: '-1',
    });
  });

  it('without the right to create topics, an existing topic is only checked; a missing one is a clear error', async () => {
    // What kafkajs throws: an aggregate whose per-topic errors carry the protocol error type.
    const refused = Object.assign(new Error('Topic creation errors'), {
      name: 'KafkaJSAggregateError',
      errors: [Object.assign(new Error('Topic authorization failed'), { type: 'TOPIC_AUTHORIZATION_FAILED' })],
    });
    const checked: string[][] = [];
    const admin = (exists: boolean) => ({
      createTopics: async () => Promise.reject(refused),
      fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
        checked.push(topics);
        if (!exists) throw new Error('This server does not host this topic-partition');
        return { topics: [] };
      },
    });
    const spec = topicSpec('transformation.run.events.v1', { brokers: [], clientId: 'c' });
    await expect(ensureTopicExists(admin(true) as never, spec)).resolves.toBeUndefined();
    await expect(ensureTopicExists(admin(false) as never, spec)).rejects.toThrow(
      /transformation\.run\.events\.v1 does not exist and this client may not create it: create it with 6 partitions/,
    );
    expect(checked).toEqual([['transformation.run.events.v1'], ['transformation.run.events.v1']]);
    const broken = { createTopics: async () => Promise.reject(new Error('network down')), fetchTopicMetadata: async () => ({}) };
    await expect(ensureTopicExists(broken as never, spec)).rejects.toThrow('network down');
  });
});
