import { Module } from '@nestjs/common';
import { AiProviders } from '@app/ai-providers';
import { BUCKET_NOTIFICATIONS } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { BucketUploadWatcher } from './bucket-upload.watcher';
import { IngestionHandlers } from './ingestion.handlers';
import { RecordSource } from './record-source';
import { RunSweeper } from './run-sweeper';
import { StructuredFileReader } from './structured-file.reader';

/** Bucket notifications when the bucket publishes to Kafka (S3 blob store, BUS=kafka, BUCKET_EVENTS_TOPIC). */
const bucketNotifications = {
  provide: BUCKET_NOTIFICATIONS,
  useFactory: (c: AppConfig) => {
    if (c.blobStore.kind !== 's3' || c.bus.kind !== 'kafka' || !c.bus.bucketEventsTopic) return null;
    // Loaded only when configured: embedded mode never loads kafkajs (libs/composition-root/src/adapters.ts).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const kafka = require('./kafka-bucket-notifications') as typeof import('./kafka-bucket-notifications');
    return new kafka.KafkaBucketNotifications({
      brokers: c.bus.brokers,
      clientId: c.bus.clientId,
      ssl: c.bus.ssl,
      sasl: c.bus.sasl,
      topic: c.bus.bucketEventsTopic,
      groupId: 'ingestion-bucket-events',
    });
  },
  inject: [APP_CONFIG],
};

@Module({
  controllers: [IngestionHandlers],
  providers: [StructuredFileReader, RecordSource, AiProviders, BucketUploadWatcher, RunSweeper, bucketNotifications],
})
export class IngestionModule {}
