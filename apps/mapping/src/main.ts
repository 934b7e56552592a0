import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { MappingModule } from './mapping.module';

@Module({ imports: [InfrastructureModule.forRoot(), MappingModule] })
class MappingApp {}

void runWorker(MappingApp, 'mapping');
