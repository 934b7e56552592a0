import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InProcessBus, MESSAGE_BUS, type MessageBus } from '@app/bus';
import { EventRelay } from '@app/event-relay';
import { CHECKPOINT_STORE, EVENT_STORE, type CheckpointStore, type EventStore } from '@app/event-store';
import { LEASE_STORE, LeaderLease, type LeaseStore, leaseHolder } from '@app/leases';

export const DURABLE_RELAY_CHECKPOINT = 'relay:bus';

/** How long the relay's lease lasts without renewal, and how often it is renewed (a standby's takeover delay). */
const RELAY_LEASE = { ttlMs: 15_000, renewMs: 5_000 };

/**
 * Feeds a durable bus (Kafka) from the event store: a catch-up subscription from the
 * relay's stored checkpoint, each event published (and acknowledged by the brokers)
 * before the checkpoint moves, so nothing appended is ever missing from the bus, even
 * across crashes. Runs in the relay app (and the standalone app) as a single active
 * instance: replicas hold a lease (`relay:bus`), one relays, the others stand by and take
 * over within RELAY_LEASE.ttlMs of its death.
 */
@Injectable()
export class RelayRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay: EventRelay | null = null;
  private lease: LeaderLease | null = null;
  private readonly logger = new Logger(RelayRuntime.name);

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CHECKPOINT_STORE) private readonly checkpoints: CheckpointStore,
    @Inject(LEASE_STORE) private readonly leases: LeaseStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.bus instanceof InProcessBus) {
      this.logger.log('In-process bus: each process feeds its own consumer groups (RunEventsServer)');
      return;
    }
    this.lease = new LeaderLease(this.leases, DURABLE_RELAY_CHECKPOINT, leaseHolder('relay'), RELAY_LEASE, {
      lead: async () => {
        this.relay = new EventRelay(this.store, this.bus, this.checkpoints, { name: DURABLE_RELAY_CHECKPOINT });
        await this.relay.start();
      },
      standDown: async () => {
        await this.relay?.stop();
        this.relay = null;
      },
    });
    await this.lease.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.lease?.stop();
  }
}
