import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { IngestionModule } from './ingestion.module';

@Module({ imports: [InfrastructureModule.forRoot(configOrExit()), IngestionModule] })
class IngestionApp {}

void runWorker(IngestionApp, 'ingestion');
