import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { createHttpApp, failedToStart, listen } from './create-http-app';
import { GatewayModule } from './gateway.module';

/** The gateway as its own process (the pipeline runs in the other apps' processes). */
@Module({ imports: [InfrastructureModule.forRoot(configOrExit()), GatewayModule] })
class GatewayApp {}

void createHttpApp(GatewayApp).then(listen).catch(failedToStart);
