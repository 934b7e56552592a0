import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { OutputModule } from './output.module';

@Module({ imports: [InfrastructureModule.forRoot(), OutputModule] })
class OutputApp {}

void runWorker(OutputApp, 'output');
