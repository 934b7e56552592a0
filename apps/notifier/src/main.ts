import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { NotifierModule } from './notifier.module';

@Module({ imports: [InfrastructureModule.forRoot(configOrExit()), NotifierModule] })
class NotifierApp {}

void runWorker(NotifierApp, 'notifier');
