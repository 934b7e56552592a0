import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { ProjectorModule } from './projector.module';

@Module({ imports: [InfrastructureModule.forRoot(), ProjectorModule] })
class ProjectorApp {}

void runWorker(ProjectorApp, 'projector');
