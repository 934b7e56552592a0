import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InProcessBus, MESSAGE_BUS, type MessageBus } from '@app/bus';
import { EventRelay } from '@app/event-relay';
import { CHECKPOINT_STORE, EVENT_STORE, type CheckpointStore, type EventStore } from '@app/event-store';

export const DURABLE_RELAY_CHECKPOINT = 'relay:bus';

/**
 * Feeds a durable bus (Kafka) from the event store: a catch-up subscription from the
 * relay's stored checkpoint, each event published (and acknowledged by the brokers)
 * before the checkpoint moves, so nothing appended is ever missing from the bus, even
 * across crashes. Runs in the relay app (and the standalone app); one instance is
 * enough, a second one only sends duplicates that consumers skip.
 */
@Injectable()
export class RelayRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay: EventRelay | null = null;
  private readonly logger = new Logger(RelayRuntime.name);

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CHECKPOINT_STORE) private readonly checkpoints: CheckpointStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.bus instanceof InProcessBus) {
      this.logger.log('In-process bus: each process feeds its own consumer groups (RunEventsServer)');
      return;
    }
    this.relay = new EventRelay(this.store, this.bus, this.checkpoints, { name: DURABLE_RELAY_CHECKPOINT });
    await this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }
}
