import type { NewEvent, StoredEvent } from '@app/contracts';

/** `no_stream`: the stream must not exist; `any`: no check; a number: the stream's last revision. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /** Revision of the last event now in the stream; pass it as the next expected revision. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: number;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamId}: expected revision ${expected}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export type EventHandler = (event: StoredEvent) => Promise<void>;

/**
 * Told by a subscription about its own loop (readiness and the restart metric listen): a read
 * or a handler failed and the subscription starts again from the last handled event after a
 * back-off; or a pass went through again.
 */
export interface SubscriptionMonitor {
  failed(error: Error): void;
  recovered(): void;
}

export interface Subscription {
  /** Stops after the event being handled, if any; resolves when stopped. */
  stop(): Promise<void>;
}

/**
 * The event store port. Appends are atomic per call and checked against the expected
 * revision; re-appending an event id that the stream already holds is a no-op
 * (idempotent appends, as in EventStoreDB).
 */
export interface EventStore {
  appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  readStream(streamId: string): Promise<StoredEvent[]>;
  /** Events with a global position greater than `afterPosition`, in order. */
  readAll(afterPosition: number, limit: number): Promise<StoredEvent[]>;
  /** Position of the last committed event (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Catch-up subscription: every event after `afterPosition`, in order, then live ones.
   * The handler is awaited; an event is not delivered before the previous one was handled.
   * A failed read or handler never ends it: it starts again after the last handled event,
   * with back-off, until stopped, telling `monitor` (so that it never stops silently).
   */
  subscribeToAll(afterPosition: number, handler: EventHandler, monitor?: SubscriptionMonitor): Subscription;
  close(): Promise<void>;
}

/** Named positions in the global log, stored by the consumers and relays that own them. */
export interface CheckpointStore {
  load(name: string): Promise<number>;
  save(name: string, position: number): Promise<void>;
  list(): Promise<Record<string, number>>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');
export const CHECKPOINT_STORE = Symbol('CHECKPOINT_STORE');
