import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { OutputModule } from './output.module';

@Module({ imports: [InfrastructureModule.forRoot(configOrExit()), OutputModule] })
class OutputApp {}

void runWorker(OutputApp, 'output');
