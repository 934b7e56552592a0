import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { MappingModule } from './mapping.module';

@Module({ imports: [InfrastructureModule.forRoot(configOrExit()), MappingModule] })
class MappingApp {}

void runWorker(MappingApp, 'mapping');
