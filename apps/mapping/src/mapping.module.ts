import { Module, type OnModuleInit } from '@nestjs/common';
import { ConsumerRegistry } from '@app/processing';
import { MappingConsumer } from './mapping.consumer';

@Module({ providers: [MappingConsumer] })
export class MappingModule implements OnModuleInit {
  constructor(private readonly registry: ConsumerRegistry, private readonly consumer: MappingConsumer) {}
  onModuleInit(): void {
    this.registry.register(this.consumer);
  }
}
