import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InProcessBus, MESSAGE_BUS, type MessageBus } from '@app/bus';
import { CommandBus } from '@nestjs/cqrs';
import { runIdOfStream, type StoredEvent } from '@app/contracts';
import { DEAD_LETTER_STORE, type DeadLetterStore, deadLetterId } from '@app/dead-letters';
import { CommandRefused, STAGES, runError } from '@app/domain';
import { EventRelay } from '@app/event-relay';
import { ApplyRunCommand, contextFromEvent } from '@app/run-commands';
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
    @Inject(DEAD_LETTER_STORE) private readonly deadLetters: DeadLetterStore,
    private readonly commandBus: CommandBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.bus instanceof InProcessBus) {
      this.logger.log('In-process bus: each process feeds its own consumer groups (RunEventsServer)');
      return;
    }
    this.lease = new LeaderLease(this.leases, DURABLE_RELAY_CHECKPOINT, leaseHolder('relay'), RELAY_LEASE, {
      lead: async () => {
        this.relay = new EventRelay(this.store, this.bus, this.checkpoints, {
          name: DURABLE_RELAY_CHECKPOINT,
          onRefused: (event, error) => this.refused(event, error),
        });
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

  /**
   * An event Kafka refuses for good (too large): kept as a dead letter of the relay (for
   * `dead-letters:list`), and its run fails, since no consumer will ever see it.
   */
  private async refused(event: StoredEvent, error: Error): Promise<void> {
    await this.deadLetters.record({
      id: deadLetterId('relay', event),
      group: 'relay',
      lane: '',
      event,
      error: { name: error.name, message: error.message },
      attempts: 1,
      dead_at: new Date().toISOString(),
    });
    const runId = runIdOfStream(event.stream_id);
    if (!runId) return;
    try {
      await this.commandBus.execute(
        new ApplyRunCommand(
          runId,
          {
            type: 'FailRun',
            error: runError('stepFailed', STAGES.ingestion, { message: `An event of this run could not be delivered (${error.message}).` }),
            at: new Date().toISOString(),
          },
          contextFromEvent(event, 'relay-refused'),
        ),
      );
    } catch (err) {
      if (!(err instanceof CommandRefused)) throw err; // the run already ended
    }
  }
}
