import { Kafka } from 'kafkajs';
import { type BucketNotifications, createdObjectKeys } from '@app/blob-storage';
import { type KafkaBusOptions, kafkaClientConfig } from '@app/bus/kafka/kafka-bus';

/**
 * Bucket notifications read from the Kafka topic MinIO publishes to (MINIO_NOTIFY_KAFKA_*).
 * Its own consumer group; an offset is committed after every key of the message was handled.
 */
export class KafkaBucketNotifications implements BucketNotifications {
  constructor(private readonly options: KafkaBusOptions & { topic: string; groupId: string }) {}

  async start(onCreated: (key: string) => Promise<void>): Promise<{ stop(): Promise<void> }> {
    const kafka = new Kafka(kafkaClientConfig(this.options));
    const consumer = kafka.consumer({ groupId: this.options.groupId });
    await consumer.connect();
    // Only new notifications: runs that waited before this group existed are found by the periodic look.
    await consumer.subscribe({ topics: [this.options.topic], fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        for (const key of createdObjectKeys(message.value?.toString('utf8') ?? '')) await onCreated(key);
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      },
    });
    return { stop: () => consumer.disconnect() };
  }
}
