import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { configOrExit } from '@app/logging';
import { createHttpApp, failedToStart, listen } from '../../gateway/src/create-http-app';
import { StandaloneModule } from './standalone.module';

@Module({ imports: [StandaloneModule.forRoot(configOrExit())] })
class StandaloneApp {}

void createHttpApp(StandaloneApp, { readsSources: true }).then(listen).catch(failedToStart);
