import { Logger } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { backOff } from 'exponential-backoff';
import { lastValueFrom } from 'rxjs';
import { TOPICS, runIdOfStream, type StoredEvent } from '@app/contracts';
import type { BusRecord, BusSubscription, MessageBus } from '@app/bus';
import { deadLetterId, type DeadLetterStore } from '@app/dead-letters';
import { CommandRefused, runError, runPhase, stageOfPhase } from '@app/domain';
import { withLogContext } from '@app/logging';
import { consumerLag, handlerDuration } from '@app/metrics';
import { inEventSpan } from '@app/tracing';
import { type ClaimedSteps, stepClaimName, stepClaimPrefix } from './claimed-steps';
import type { ConsumerCheckpoints } from './consumer-checkpoints';
import { isTransient } from './error-classification';
import { RunEventContext } from './run-event.context';
import { RunStep, type StepCommand } from './run-step';

/** What `@EventPattern('<EventType>', { consumer })` names: the consumer group whose handler it is. */
export interface RunEventHandlerExtras {
  consumer: string;
  /**
   * The handler writes the group's checkpoint itself, in the same transaction as its work
   * (the projector: document and checkpoint together), so the transport does not write it again.
   */
  savesCheckpoint?: boolean;
  /**
   * Long work (a file read, an output, an AI vendor call): the event is acknowledged once the
   * step is claimed, and the handler runs outside the bus's handler under the claim (see
   * ClaimedSteps). Without a ClaimedSteps in the options, the handler runs inline.
   */
  claimStep?: boolean;
}

/**
 * Feeds the bus for this process's consumers, from a position (the in-process bus keeps
 * nothing across restarts; a durable bus is fed by the relay app instead).
 */
export type BusFeeder = (startAfter: number) => Promise<{ stop(): Promise<void> }>;

export interface RunEventsServerOptions {
  /** Feeds an in-process bus from the event store (null: the bus is fed elsewhere, e.g. Kafka by the relay app). */
  feeder?: BusFeeder | null;
  /** Where poison events go; without it a failing event is retried for ever (and says so in the log). */
  deadLetters?: DeadLetterStore | null;
  /** Also publish each dead letter to this topic (a durable bus only; its headers carry the error). */
  deadLetterTopic?: string | null;
  /** Attempts at an event whose handler fails with a non-transient error before it is dead-lettered. */
  maxAttempts?: number;
  /** How often the groups look for dead letters the operator asked to replay (ms; 0: never). */
  replayPollMs?: number;
  /** Where `claimStep` handlers claim their steps (null: they run inline, inside the bus's handler). */
  claims?: ClaimedSteps | null;
  /** The event store's head position, for the lag of a bus that does not report its own (the in-process bus). */
  headPosition?: () => Promise<number>;
}

/** How a consumer group is doing, for readiness. */
export interface GroupHealth {
  group: string;
  /** False when the group's subscription stopped or its consumer crashed for good. */
  consuming: boolean;
  /** The event the group is stuck on (failing and retried) in its longest-stuck lane, if any, with the error and since when. */
  failing: { lane: string; type: string; position: number; attempts: number; error: string; since: string } | null;
}

/**
 * A Nest transport over the MessageBus port (the in-process bus or Kafka). Each consumer
 * group named in the handlers' `@EventPattern(type, { consumer })` subscribes to the run
 * events topic on its own, receives every event in order per lane, and runs the handler
 * for the event's type, if it has one. The group's checkpoint for the lane is saved only
 * after the handler's work is durable; an event at or below it is a redelivery and is
 * skipped. A handler that throws leaves the checkpoint where it was, so the bus delivers
 * the event again (at least once; handlers are idempotent per event).
 *
 * Unlike Nest's own `handleEvent`, handlers of different groups for one event type are
 * never run together: each group has its own subscription, order and checkpoint.
 */
export class RunEventsServer extends Server implements CustomTransportStrategy {
  private readonly routes = new Map<string, Map<string, MessageHandler>>();
  private readonly subscriptions = new Map<string, BusSubscription>();
  private feed: { stop(): Promise<void> } | null = null;
  private replayTimer: NodeJS.Timeout | null = null;
  private replaying: Promise<void> = Promise.resolve();
  private takeoverTimer: NodeJS.Timeout | null = null;
  private takingOver: Promise<void> = Promise.resolve();
  private closing = false;
  private stopReportingLag: () => void = () => undefined;
  /** Per group and lane (`<group>/<lane>`): the event it is failing on, if any. */
  private readonly failing = new Map<string, NonNullable<GroupHealth['failing']> & { group: string; position: number }>();
  protected override readonly logger = new Logger(RunEventsServer.name);
  private readonly maxAttempts: number;

  constructor(
    private readonly bus: MessageBus,
    private readonly checkpoints: ConsumerCheckpoints,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly options: RunEventsServerOptions = {},
  ) {
    super();
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    const type = this.normalizePattern(pattern as string);
    if (!isEventHandler) throw new Error(`${type}: run events are published, not requested; use @EventPattern`);
    const group = (extras as Partial<RunEventHandlerExtras>).consumer;
    if (typeof group !== 'string') throw new Error(`@EventPattern('${type}') must name its consumer group: { consumer: '<group>' }`);
    const table = this.routes.get(group) ?? new Map<string, MessageHandler>();
    if (table.has(type)) throw new Error(`Consumer group ${group} has two handlers for ${type}`);
    callback.isEventHandler = true;
    callback.extras = extras;
    table.set(type, callback);
    this.routes.set(group, table);
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      const groups = [...this.routes.keys()];
      for (const group of groups) this.subscriptions.set(group, await this.subscribe(group));
      this.stopReportingLag = consumerLag.addSource(() => this.lag());
      if (this.options.feeder && groups.length > 0) {
        const lowest = Math.min(...(await Promise.all(groups.map((g) => this.checkpoints.load(g, '')))));
        this.feed = await this.options.feeder(lowest);
      }
      if (groups.length > 0) this.logger.log(`Consuming run events: ${groups.join(', ')}`);
      await this.startTakingOver();
      const pollMs = this.options.replayPollMs ?? 2000;
      if (this.options.deadLetters && groups.length > 0 && pollMs > 0) {
        this.replayTimer = setInterval(() => {
          this.replaying = this.replaying
            .then(async () => void (await this.replayRequested()))
            .catch((err: Error) => this.logger.warn(`Replaying dead letters failed: ${err.message}`));
        }, pollMs);
        this.replayTimer.unref();
      }
      callback();
    } catch (err) {
      callback(err);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stopReportingLag();
    if (this.replayTimer) clearInterval(this.replayTimer);
    this.replayTimer = null;
    if (this.takeoverTimer) clearInterval(this.takeoverTimer);
    this.takeoverTimer = null;
    await this.replaying;
    await this.takingOver;
    // Stop feeding before consuming, so nothing is handed to a stopped subscription.
    await this.feed?.stop();
    this.feed = null;
    const subscriptions = [...this.subscriptions.values()];
    this.subscriptions.clear();
    await Promise.all(subscriptions.map((s) => s.stop()));
    // Claimed steps already under way finish (their retries stop); one that cannot is taken over later.
    await this.options.claims?.drain();
  }

  on(): never {
    throw new Error('RunEventsServer emits no status events');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  /** Each group's state: failing (stuck on an event that is being retried, in its longest-stuck lane) or not. */
  health(): GroupHealth[] {
    return [...this.routes.keys()].map((group) => {
      const stuck = [...this.failing.values()].filter((f) => f.group === group).sort((a, b) => a.since.localeCompare(b.since))[0];
      return {
        group,
        consuming: this.subscriptions.get(group)?.running() ?? false,
        failing: stuck
          ? {
              lane: stuck.lane,
              type: stuck.type,
              position: stuck.position,
              attempts: stuck.attempts,
              error: stuck.error,
              since: stuck.since,
            }
          : null,
      };
    });
  }

  /** Each of this process's groups' lag per lane (events still to handle), for the metrics. */
  private async lag(): Promise<{ labels: { group: string; lane: string }; value: number }[]> {
    const groups = [...this.subscriptions.keys()];
    const headPosition = this.options.headPosition;
    const perGroup = await Promise.all(
      groups.map(async (group) => {
        if (this.bus.consumerLag) return this.bus.consumerLag(TOPICS.runEvents, group);
        if (!headPosition) return [];
        const [head, at] = await Promise.all([headPosition(), this.checkpoints.load(group, '')]);
        return [{ lane: '', behind: Math.max(0, head - at) }];
      }),
    );
    return perGroup.flatMap((lanes, i) => lanes.map(({ lane, behind }) => ({ labels: { group: groups[i], lane }, value: behind })));
  }

  /**
   * Hands the events the operator asked to replay (`dead-letters:replay`) to their group's
   * handler again, whatever the group's checkpoint; the checkpoint does not move.
   */
  async replayRequested(): Promise<number> {
    const store = this.options.deadLetters;
    if (!store) return 0;
    const due = await store.replaysDue([...this.routes.keys()], 20);
    for (const letter of due) {
      if (!(await store.claimReplay(letter.id))) continue; // another replica of the group took it
      let outcome = 'handled';
      try {
        await this.handle(letter.group, letter.event, letter.lane);
      } catch (err) {
        outcome = `failed: ${describe(err)}`;
      }
      this.logger.log(`Replayed dead letter ${letter.id}: ${outcome}`);
      await store.markReplayed(letter.id, outcome);
    }
    return due.length;
  }

  private async subscribe(group: string): Promise<BusSubscription> {
    const handledUpTo = new Map<string, number>();
    const handled = async (lane: string) => {
      let at = handledUpTo.get(lane);
      if (at === undefined) handledUpTo.set(lane, (at = await this.checkpoints.load(group, lane)));
      return at;
    };
    this.logger.log(`${group} consumes after position ${await handled('')}`);
    return this.bus.subscribe(TOPICS.runEvents, group, async ({ value, lane = '' }: BusRecord) => {
      if (value.position <= (await handled(lane))) return;
      const savedByHandler = this.isClaimed(group, value)
        ? await this.claim(group, value, lane)
        : await this.handleOrDeadLetter(group, value, lane);
      if (!savedByHandler) await this.checkpoints.save(group, lane, value.position);
      handledUpTo.set(lane, value.position);
    });
  }

  /**
   * Runs the handler. An infrastructure error is thrown back to the bus, which delivers the
   * event again (after its back-off) for as long as the outage lasts. Any other error is the
   * event's: after `maxAttempts` the event becomes a dead letter, its run fails with
   * `transformation_processing_failed`, and the group moves on instead of blocking the lane.
   */
  private handleOrDeadLetter(group: string, event: StoredEvent, lane: string, key = `${group}/${lane}`): Promise<boolean> {
    // Every log line written while handling it says which event of which run this was.
    const fields = {
      group,
      run_id: runIdOfStream(event.stream_id),
      organization_id: event.metadata.organization_id,
      event_type: event.type,
      position: event.position,
      ...(lane ? { lane } : {}),
    };
    return withLogContext(fields, () => this.handleOrDeadLetterInContext(group, event, lane, key));
  }

  private async handleOrDeadLetterInContext(group: string, event: StoredEvent, lane: string, key: string): Promise<boolean> {
    // Only events the group has a handler for are measured and logged (the others are skipped at once).
    const handled = this.routes.get(group)?.has(event.type) === true;
    const timer = handled ? handlerDuration.startTimer({ group, event_type: event.type }) : () => 0;
    // Per lane (or per claimed step): Kafka interleaves partitions, so another lane's success must not reset this one's count.
    try {
      const savedByHandler = await this.handle(group, event, lane);
      this.failing.delete(key);
      timer({ outcome: 'ok' });
      if (handled) this.logger.debug(`${group} handled ${event.type}@${event.position}`);
      return savedByHandler;
    } catch (err) {
      const earlier = this.failing.get(key);
      const same = earlier?.position === event.position;
      const attempts = same ? earlier.attempts + 1 : 1;
      const since = same ? earlier.since : new Date().toISOString();
      this.failing.set(key, { group, lane, type: event.type, position: event.position, attempts, error: describe(err), since });
      const transient = isTransient(err);
      const store = this.options.deadLetters;
      if (transient || attempts < this.maxAttempts || !store) {
        const next = transient
          ? 'transient, retried while it lasts'
          : store
            ? `dead letter after ${this.maxAttempts}`
            : 'no dead-letter store: retried';
        this.logger.warn(`${group} failed on ${event.type}@${event.position} (attempt ${attempts}, ${next}): ${describe(err)}`);
        timer({ outcome: 'retry' });
        throw err;
      }
      await this.deadLetter(store, group, event, lane, err, attempts);
      this.failing.delete(key);
      timer({ outcome: 'dead_letter' });
      return false;
    }
  }

  /**
   * Records the letter (that must work: the group only moves on once it is kept), then tells
   * the world: the DLQ topic (once per letter) and the run's failure. Those two are best
   * effort, so a dead letter never loops back into the lane.
   */
  private async deadLetter(store: DeadLetterStore, group: string, event: StoredEvent, lane: string, err: unknown, attempts: number) {
    const error = { name: err instanceof Error ? err.name : 'Error', message: describe(err) };
    const deadAt = new Date().toISOString();
    const id = deadLetterId(group, event);
    const known = await store.get(id);
    await store.record({ id, group, lane, event, error, attempts, dead_at: deadAt });
    this.logger.error(
      `${group} gave up on ${event.type}@${event.position} (${event.stream_id}) after ${attempts} attempts: ${error.message}`,
    );
    if (this.options.deadLetterTopic && !known) {
      await this.bus
        .publish(this.options.deadLetterTopic, [
          {
            key: event.stream_id,
            value: event,
            headers: {
              dead_letter_group: group,
              dead_letter_error: `${error.name}: ${error.message}`.slice(0, 1000),
              dead_letter_attempts: String(attempts),
              dead_at: deadAt,
            },
          },
        ])
        .catch((e: Error) =>
          this.logger.error(`Dead letter ${id} kept, but not published to ${this.options.deadLetterTopic}: ${e.message}`),
        );
    }
    await this.failRunOf(event).catch((e: Error) => this.logger.error(`Dead letter ${id}: its run could not be failed: ${e.message}`));
  }

  /** The run the poison event belongs to fails (unless it already ended): its owner learns of it by webhook. */
  private async failRunOf(event: StoredEvent): Promise<void> {
    const step = new RunStep(event, this.commandBus, this.queryBus);
    if (!step.runId) return;
    const run = await step.run();
    if (!run) return;
    try {
      await step.fail(runError('stepFailed', stageOfPhase(runPhase(run))));
    } catch (err) {
      if (!(err instanceof CommandRefused)) throw err; // already failed or finished: nothing to stop
    }
  }

  private isClaimed(group: string, event: StoredEvent): boolean {
    const extras = this.routes.get(group)?.get(event.type)?.extras as Partial<RunEventHandlerExtras> | undefined;
    return extras?.claimStep === true && !!this.options.claims && runIdOfStream(event.stream_id) !== null;
  }

  /**
   * Claims the step for the event and starts it in the background; the bus may then move on
   * (the claim keeps the event). A step someone else has claimed (a redelivery to a second
   * replica while the first works) is theirs: nothing is done here.
   */
  private async claim(group: string, event: StoredEvent, lane: string): Promise<false> {
    const name = stepClaimName(group, event.stream_id, event.position);
    const note: ClaimNote = { event, lane };
    const started = await this.options.claims!.start(name, JSON.stringify(note), () => this.settle(group, event, lane));
    if (!started) this.logger.log(`${group}: ${event.type}@${event.position} is being handled by another replica`);
    return false;
  }

  /**
   * A claimed step, handled until it settles: handled, or dead-lettered after its attempts;
   * outages are retried with back-off while the process runs. Rejects (the claim then
   * expires and the step is taken over) only when the process stops first.
   */
  private async settle(group: string, event: StoredEvent, lane: string): Promise<void> {
    const key = `${group}/${lane}@${event.position}`;
    await backOff(() => this.handleOrDeadLetter(group, event, lane, key), {
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      startingDelay: 500,
      maxDelay: 30_000,
      jitter: 'full',
      retry: () => !this.closing,
    });
  }

  /**
   * Claimed steps left by a process that died are started again here: at once for this
   * process's own (a restart), then, every renewal period, those whose claim expired.
   */
  private async startTakingOver(): Promise<void> {
    const claims = this.options.claims;
    const groups = [...this.routes.entries()]
      .filter(([, table]) => [...table.values()].some((h) => (h.extras as Partial<RunEventHandlerExtras>)?.claimStep === true))
      .map(([group]) => group);
    if (!claims || groups.length === 0) return;
    const sweep = async (ownToo: boolean) => {
      for (const group of groups) {
        await claims.takeOver(stepClaimPrefix(group), ownToo, (text) => {
          const note = JSON.parse(text) as ClaimNote;
          return () => this.settle(group, note.event, note.lane);
        });
      }
    };
    await sweep(true);
    this.takeoverTimer = setInterval(() => {
      this.takingOver = this.takingOver
        .then(() => sweep(false))
        .catch((err: Error) => this.logger.warn(`Taking over steps failed: ${err.message}`));
    }, claims.renewMs);
    this.takeoverTimer.unref();
  }

  /** Runs the group's handler for the event, if it has one; true when that handler saved the group's checkpoint itself. */
  private async handle(group: string, event: StoredEvent, lane: string): Promise<boolean> {
    const handler = this.routes.get(group)?.get(event.type);
    if (!handler) return false;
    // A CONSUMER span in the trace the event's metadata carries (claimed steps and replays come here too);
    // the commands issued inside carry it on. Tracing off: no span, the body runs as it is.
    return inEventSpan(group, event, { topic: TOPICS.runEvents, lane, runId: runIdOfStream(event.stream_id) }, async () => {
      const context = new RunEventContext([lane, new RunStep(event, this.commandBus, this.queryBus)]);
      // Handler errors come back unchanged (PassErrorsToTransport) for handleOrDeadLetter to classify.
      const returned: unknown = await handler(event, context);
      const outcome = await lastValueFrom(this.transformToObservable(returned), { defaultValue: undefined });
      if (isStepCommand(outcome)) await context.step.apply(outcome);
      return (handler.extras as Partial<RunEventHandlerExtras> | undefined)?.savesCheckpoint === true;
    });
  }
}

/** What a step's claim keeps, for whoever takes the step over. */
interface ClaimNote {
  event: StoredEvent;
  lane: string;
}

const isStepCommand = (value: unknown): value is StepCommand =>
  typeof value === 'object' && value !== null && 'command' in value && 'step' in value;

const describe = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
