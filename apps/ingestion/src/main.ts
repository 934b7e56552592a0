import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/infrastructure';
import { IngestionModule } from './ingestion.module';

@Module({ imports: [InfrastructureModule.forRoot(), IngestionModule] })
class IngestionApp {}

void runWorker(IngestionApp, 'ingestion');
