import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { ProjectorModule } from './projector.module';

@Module({ imports: [InfrastructureModule.forRoot(configOrExit()), ProjectorModule] })
class ProjectorApp {}

void runWorker(ProjectorApp, 'projector');
