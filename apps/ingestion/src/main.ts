import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { IngestionModule } from './ingestion.module';

@Module({ imports: [InfrastructureModule.forRoot(), IngestionModule] })
class IngestionApp {}

void runWorker(IngestionApp, 'ingestion');
