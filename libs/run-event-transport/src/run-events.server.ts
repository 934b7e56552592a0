import { Logger } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { TOPICS, type StoredEvent } from '@app/contracts';
import type { BusRecord, BusSubscription, MessageBus } from '@app/bus';
import type { ConsumerCheckpoints } from './consumer-checkpoints';
import { RunEventContext } from './run-event.context';
import { RunStep, type StepCommand } from './run-step';

/** What `@EventPattern('<EventType>', { consumer })` names: the consumer group whose handler it is. */
export interface RunEventHandlerExtras {
  consumer: string;
}

/**
 * Feeds the bus for this process's consumers, from a position (the in-process bus keeps
 * nothing across restarts; a durable bus is fed by the relay app instead).
 */
export type BusFeeder = (startAfter: number) => Promise<{ stop(): Promise<void> }>;

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
  private subscriptions: BusSubscription[] = [];
  private feed: { stop(): Promise<void> } | null = null;
  protected override readonly logger = new Logger(RunEventsServer.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly checkpoints: ConsumerCheckpoints,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly feeder: BusFeeder | null = null,
  ) {
    super();
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

  /** Consumer group -> the event types it handles, as the decorators declare them. */
  routing(): Record<string, string[]> {
    return Object.fromEntries([...this.routes].map(([group, table]) => [group, [...table.keys()]]));
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      const groups = [...this.routes.keys()];
      for (const group of groups) this.subscriptions.push(await this.subscribe(group));
      if (this.feeder && groups.length > 0) {
        const lowest = Math.min(...(await Promise.all(groups.map((g) => this.checkpoints.load(g, '')))));
        this.feed = await this.feeder(lowest);
      }
      if (groups.length > 0) this.logger.log(`Consuming run events: ${groups.join(', ')}`);
      callback();
    } catch (err) {
      callback(err);
    }
  }

  async close(): Promise<void> {
    // Stop feeding before consuming, so nothing is handed to a stopped subscription.
    await this.feed?.stop();
    this.feed = null;
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  on(): never {
    throw new Error('RunEventsServer emits no status events');
  }

  unwrap<T>(): T {
    return this.bus as T;
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
      await this.handle(group, value, lane);
      await this.checkpoints.save(group, lane, value.position);
      handledUpTo.set(lane, value.position);
    });
  }

  private async handle(group: string, event: StoredEvent, lane: string): Promise<void> {
    const handler = this.routes.get(group)?.get(event.type);
    if (!handler) return;
    const context = new RunEventContext([lane, new RunStep(event, this.commandBus, this.queryBus)]);
    let outcome: unknown;
    try {
      outcome = await lastValueFrom(this.transformToObservable(await handler(event, context)), { defaultValue: undefined });
    } catch (err) {
      // Nest's RPC exception filter has logged the error and rethrows it as { status, message }.
      throw err instanceof Error ? err : new Error(`${group} failed on ${event.type}@${event.position}: ${describe(err)}`);
    }
    if (isStepCommand(outcome)) await context.step.apply(outcome);
  }
}

const isStepCommand = (value: unknown): value is StepCommand =>
  typeof value === 'object' && value !== null && 'command' in value && 'step' in value;

const describe = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
