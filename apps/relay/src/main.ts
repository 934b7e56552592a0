import '@app/tracing/register';
import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/composition-root';
import { configOrExit } from '@app/logging';
import { RelayRuntime } from './relay-runtime';

/** Moves events from the event store to the durable bus (BUS=kafka), from its checkpoint. */
@Module({ imports: [InfrastructureModule.forRoot(configOrExit())], providers: [RelayRuntime] })
class RelayApp {}

void runWorker(RelayApp, 'relay');
