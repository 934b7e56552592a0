import { Module, type OnModuleInit } from '@nestjs/common';
import { ConsumerRegistry } from '@app/processing';
import { IngestionConsumer } from './ingestion.consumer';

@Module({ providers: [IngestionConsumer] })
export class IngestionModule implements OnModuleInit {
  constructor(private readonly registry: ConsumerRegistry, private readonly consumer: IngestionConsumer) {}
  onModuleInit(): void {
    this.registry.register(this.consumer);
  }
}
