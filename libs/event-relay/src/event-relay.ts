import { Logger } from '@nestjs/common';
import { backOff } from 'exponential-backoff';
import { TOPICS, type StoredEvent } from '@app/contracts';
import type { CheckpointStore, EventStore, Subscription } from '@app/event-store';
import type { MessageBus } from '@app/bus';

export interface RelayOptions {
  /** Name of the relay's checkpoint. */
  name: string;
  /**
   * Where to start instead of the relay's own checkpoint. The in-process bus keeps
   * nothing across restarts, so in embedded mode the relay starts from the lowest
   * checkpoint of its consumers and re-sends what any of them had not finished.
   */
  startFrom?: () => Promise<number>;
  /** Back-off between attempts to publish an event the bus refused (ms). */
  retryDelayMs?: { first: number; max: number };
}

/**
 * Moves every event from the event store to the bus, in order, from a checkpoint, so
 * nothing appended is ever missing from the bus, even across crashes (it may be sent
 * twice; consumers skip what they already handled).
 */
export class EventRelay {
  private subscription: Subscription | null = null;
  private stopping = false;
  private readonly logger = new Logger(EventRelay.name);

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly checkpoints: CheckpointStore,
    private readonly options: RelayOptions,
  ) {}

  async start(): Promise<void> {
    const from = this.options.startFrom ? await this.options.startFrom() : await this.checkpoints.load(this.options.name);
    this.logger.log(`Relaying events after position ${from}`);
    this.stopping = false;
    this.subscription = this.store.subscribeToAll(from, async (event) => {
      await this.publish(event);
      await this.checkpoints.save(this.options.name, event.position);
    });
  }

  /**
   * Publishes one event, trying again (with back-off) while the bus refuses it: the
   * subscription waits, so later events keep their order behind it, and the checkpoint
   * stays before it. Stopping the relay ends the attempts.
   */
  private async publish(event: StoredEvent): Promise<void> {
    const delay = this.options.retryDelayMs ?? { first: 100, max: 10_000 };
    await backOff(() => this.bus.publish(TOPICS.runEvents, [{ key: event.stream_id, value: event }]), {
      numOfAttempts: Infinity,
      startingDelay: delay.first,
      maxDelay: delay.max,
      retry: (err: Error, attempt) => {
        if (this.stopping) return false;
        this.logger.warn(`Publishing ${event.type}@${event.position} failed (attempt ${attempt}); trying again: ${err.message}`);
        return true;
      },
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.subscription?.stop();
    this.subscription = null;
  }
}
