import { Module, type OnModuleInit } from '@nestjs/common';
import { ConsumerRegistry } from '@app/processing';
import { OutputConsumer } from './output.consumer';

@Module({ providers: [OutputConsumer] })
export class OutputModule implements OnModuleInit {
  constructor(
    private readonly registry: ConsumerRegistry,
    private readonly consumer: OutputConsumer,
  ) {}
  onModuleInit(): void {
    this.registry.register(this.consumer);
  }
}
