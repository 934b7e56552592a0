import { Logger } from '@nestjs/common';
import { backOff } from 'exponential-backoff';
import { TOPICS, runIdOfStream, type StoredEvent } from '@app/contracts';
import type { CheckpointStore, EventStore, Subscription } from '@app/event-store';
import type { MessageBus } from '@app/bus';
import { relayLag } from '@app/metrics';
import { type LoopMonitor, loopHealth } from '@app/polling';

export interface RelayOptions {
  /** Name of the relay's checkpoint. */
  name: string;
  /**
   * Where to start instead of the relay's own checkpoint. The in-process bus keeps
   * nothing across restarts, so in embedded mode the relay starts from the lowest
   * checkpoint of its consumers and re-sends what any of them had not finished.
   */
  startFrom?: () => Promise<number>;
  /** Back-off between attempts to publish a batch the bus refused (ms). */
  retryDelayMs?: { first: number; max: number };
  /** Events sent in one publish (and one checkpoint write) at most. */
  maxBatch?: number;
  /** How long an event may wait for others to join its batch (ms). */
  lingerMs?: number;
  /**
   * An event the bus refuses for good (Kafka's MESSAGE_TOO_LARGE): the relay hands it here
   * (to record it and alert) and moves on, instead of stopping every run behind it.
   */
  onRefused?: (event: StoredEvent, error: Error) => Promise<void>;
}

/** Errors that sending again cannot fix: the event itself is refused. */
const REFUSED_FOR_GOOD = new Set(['MESSAGE_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE']);
const refusedForGood = (err: unknown): boolean => REFUSED_FOR_GOOD.has((err as { type?: string })?.type ?? '');

/**
 * Moves every event from the event store to the bus, in order, from a checkpoint, so
 * nothing appended is ever missing from the bus, even across crashes (it may be sent
 * twice; consumers skip what they already handled). Events go in batches (up to
 * `maxBatch`, or what arrived within `lingerMs`): one publish and one checkpoint write per
 * batch, in store order, so one run's events keep their order.
 */
export class EventRelay {
  private subscription: Subscription | null = null;
  private stopping = false;
  private batch: StoredEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private lingering: NodeJS.Timeout | null = null;
  private readonly logger = new Logger(EventRelay.name);
  private stopReportingLag: () => void = () => undefined;
  /** Its two loops, for readiness and `transform_loop_restarts_total`: reading the store (`<name>/read`) and sending to the bus (`<name>/send`). */
  private reading: LoopMonitor | null = null;
  private sending: LoopMonitor | null = null;

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
    this.stopReportingLag = relayLag.addSource(async () => {
      const [head, at] = await Promise.all([this.store.headPosition(), this.checkpoints.load(this.options.name)]);
      return [{ labels: { relay: this.options.name }, value: Math.max(0, head - at) }];
    });
    this.reading = loopHealth.monitor(`${this.options.name}/read`);
    this.sending = loopHealth.monitor(`${this.options.name}/send`);
    this.subscription = this.store.subscribeToAll(
      from,
      async (event) => {
        this.batch.push(event);
        // A full batch makes the subscription wait for its send (back-pressure); a partial one
        // is sent when no more events came within lingerMs.
        if (this.batch.length >= (this.options.maxBatch ?? 500)) return this.flush();
        this.lingering ??= setTimeout(() => {
          this.lingering = null;
          void this.flush().catch((err: Error) => this.logger.warn(`Relaying stopped on: ${err.message}`));
        }, this.options.lingerMs ?? 5);
      },
      this.reading,
    );
  }

  /** Sends what is batched, after any send in progress (so batches keep their order). */
  private flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(() => this.sendBatch());
    return this.flushing;
  }

  /**
   * Sends the batch and moves the checkpoint past it, trying again (with back-off) until it
   * worked or the relay stops: the subscription never ends on an error, and an event is
   * never checkpointed unsent. What a stopping relay could not send goes back to the batch.
   */
  private async sendBatch(): Promise<void> {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = null;
    const events = this.batch.splice(0);
    if (events.length === 0) return;
    const delay = this.options.retryDelayMs ?? { first: 100, max: 10_000 };
    try {
      await backOff(
        async () => {
          await this.sendAll(events);
          await this.checkpoints.save(this.options.name, events[events.length - 1].position);
          this.sending?.recovered();
        },
        {
          numOfAttempts: Infinity,
          startingDelay: delay.first,
          maxDelay: delay.max,
          retry: (err: Error, attempt) => {
            if (this.stopping) return false;
            this.sending?.failed(err);
            this.logger.warn(
              `Relaying ${events.length} event(s) from position ${events[0].position} failed (attempt ${attempt}); trying again: ${err.message}`,
            );
            return true;
          },
        },
      );
    } catch (err) {
      this.batch.unshift(...events); // unsent, not checkpointed: sent again after a restart
      throw err;
    }
  }

  /** One publish for the batch; when the bus refuses one of its events for good, one by one, handing the refused ones over. */
  private async sendAll(events: StoredEvent[]): Promise<void> {
    try {
      await this.publish(events);
    } catch (err) {
      if (!refusedForGood(err)) throw err;
      for (const event of events) {
        try {
          await this.publish([event]);
        } catch (single) {
          if (!refusedForGood(single)) throw single;
          this.logger.error(
            `The bus refused ${event.type}@${event.position} (${event.stream_id}) for good: ${(single as Error).message}; skipped`,
          );
          await this.options.onRefused?.(event, single as Error);
        }
      }
    }
  }

  /**
   * Only run streams go to the run-events topic: the organizations' own streams (the console's
   * audit log, docs/console.md) are kept and replayable in the store but are not for downstream teams.
   */
  private async publish(events: StoredEvent[]): Promise<void> {
    const runEvents = events.filter((event) => runIdOfStream(event.stream_id) !== null);
    if (runEvents.length === 0) return;
    await this.bus.publish(
      TOPICS.runEvents,
      runEvents.map((event) => ({ key: event.stream_id, value: event })),
    );
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopReportingLag();
    await this.subscription?.stop();
    this.subscription = null;
    // What was batched is sent if the bus takes it now; otherwise it is sent again after a restart (not checkpointed).
    await this.flush().catch(() => undefined);
    this.reading?.ended();
    this.sending?.ended();
    this.reading = this.sending = null;
  }
}
