import { Module, type OnModuleInit } from '@nestjs/common';
import { AiProviders } from '@app/ai-providers';
import { ConsumerRegistry } from '@app/processing';
import { BucketUploadWatcher } from './bucket-upload.watcher';
import { IngestionConsumer } from './ingestion.consumer';
import { RecordSource } from './record-source';
import { StructuredFileReader } from './structured-file.reader';

@Module({ providers: [IngestionConsumer, StructuredFileReader, RecordSource, AiProviders, BucketUploadWatcher] })
export class IngestionModule implements OnModuleInit {
  constructor(private readonly registry: ConsumerRegistry, private readonly consumer: IngestionConsumer) {}
  onModuleInit(): void {
    this.registry.register(this.consumer);
  }
}
