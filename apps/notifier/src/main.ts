import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/infrastructure';
import { NotifierModule } from './notifier.module';

@Module({ imports: [InfrastructureModule.forRoot(), NotifierModule] })
class NotifierApp {}

void runWorker(NotifierApp, 'notifier');
