import { Module, type OnModuleInit } from '@nestjs/common';
import { ConsumerRegistry } from '@app/processing';
import { RunProjector } from './run-projector';

@Module({ providers: [RunProjector], exports: [RunProjector] })
export class ProjectorModule implements OnModuleInit {
  constructor(
    private readonly registry: ConsumerRegistry,
    private readonly projector: RunProjector,
  ) {}
  onModuleInit(): void {
    this.registry.register(this.projector);
  }
}
