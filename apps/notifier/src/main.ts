import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { NotifierModule } from './notifier.module';

@Module({ imports: [InfrastructureModule.forRoot(), NotifierModule] })
class NotifierApp {}

void runWorker(NotifierApp, 'notifier');
