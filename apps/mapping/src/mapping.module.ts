import { Module, type OnModuleInit } from '@nestjs/common';
import { AiProviders } from '@app/ai-providers';
import { ConsumerRegistry } from '@app/processing';
import { MappingConsumer } from './mapping.consumer';

@Module({ providers: [MappingConsumer, AiProviders] })
export class MappingModule implements OnModuleInit {
  constructor(
    private readonly registry: ConsumerRegistry,
    private readonly consumer: MappingConsumer,
  ) {}
  onModuleInit(): void {
    this.registry.register(this.consumer);
  }
}
