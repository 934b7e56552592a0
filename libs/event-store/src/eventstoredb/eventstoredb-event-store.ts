import { Logger } from '@nestjs/common';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { RUN_STREAM_PREFIX, isJsonObject, type EventMetadata, type NewEvent, type StoredEvent } from '@app/contracts';
import {
  type AppendResult,
  type EventHandler,
  type EventStore,
  type ExpectedRevision,
  type Subscription,
  type SubscriptionMonitor,
  WrongExpectedRevisionError,
} from '../event-store.port';

/**
 * Our global `position` on EventStoreDB is the event's prepare position. Every event of
 * one gRPC append is its own prepare record, written contiguously, and the append's
 * commit position is that of its first record, so $all's order (commit, prepare) is the
 * prepare order and prepare positions are unique and increasing. A read or subscription
 * "after P" starts at the log record P itself ({ commit: P, prepare: P }) and drops
 * what is at or before P. (No explicit, interleaved TCP transactions: we never use them.)
 */
const toPosition = (p: Position | undefined): number => {
  if (!p) throw new Error('EventStoreDB returned an event without a position (server older than 22.6?)');
  if (p.prepare > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`Log position ${p.prepare} is beyond 2^53`);
  return Number(p.prepare);
};
const readFrom = (after: number): ReadPosition => (after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) });

/** ESDB's own correlation keys are written beside ours so its projections and UI can follow chains. */
const toEsdbMetadata = (m: EventMetadata) => ({ ...m, $correlationId: m.correlation_id, $causationId: m.causation_id });
const fromEsdbMetadata = (m: unknown): EventMetadata => {
  // Metadata that is not JSON comes from the client as its bytes: handed over as its text, which the run event
  // check refuses (as the SQLite store hands over such a row), rather than as an object of numbered bytes.
  if (m instanceof Uint8Array) return Buffer.from(m).toString('utf8') as unknown as EventMetadata;
  // JSON that is no object (null, a number, a list): its text too, as the SQLite store hands it over.
  if (!isJsonObject(m)) return (JSON.stringify(m) ?? '') as unknown as EventMetadata;
  const { $correlationId: _c, $causationId: _k, ...ours } = m;
  return ours as unknown as EventMetadata;
};

const toExpected = (e: ExpectedRevision): AppendExpectedRevision => (e === 'no_stream' ? NO_STREAM : e === 'any' ? ANY : BigInt(e));

export interface EventStoreDbOptions {
  /** Only streams with these prefixes are ours; everything else in $all is skipped. */
  streamPrefixes?: string[];
  /** Wait before re-subscribing after a dropped subscription or a failed handler. */
  resubscribeDelayMs?: { first: number; max: number };
}

/** Event store on EventStoreDB / KurrentDB over gRPC (`esdb://host:2113?tls=false`). */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly prefixes: string[];
  private readonly retry: { first: number; max: number };
  private readonly logger = new Logger(EventStoreDbEventStore.name);

  constructor(connectionString: string, options: EventStoreDbOptions = {}) {
    this.client = EventStoreDBClient.connectionString(connectionString);
    this.prefixes = options.streamPrefixes ?? [RUN_STREAM_PREFIX];
    this.retry = options.resubscribeDelayMs ?? { first: 200, max: 10_000 };
  }

  private isOurs(streamId: string): boolean {
    return this.prefixes.some((p) => streamId.startsWith(p));
  }

  private toStored(resolved: ResolvedEvent | AllStreamResolvedEvent): StoredEvent | null {
    const e = resolved.event;
    if (!e || !e.isJson || !this.isOurs(e.streamId)) return null;
    return {
      event_id: e.id,
      type: e.type,
      data: e.data,
      metadata: fromEsdbMetadata(e.metadata),
      stream_id: e.streamId,
      revision: Number(e.revision),
      position: toPosition(e.position),
      recorded_at: e.created.toISOString(),
    };
  }

  async appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('Nothing to append');
    const data = events.map((e) =>
      jsonEvent({
        id: e.event_id,
        type: e.type,
        data: e.data as Record<string, unknown>,
        metadata: toEsdbMetadata(e.metadata),
      }),
    );
    let next: bigint;
    try {
      // The server makes this idempotent: the same event ids at the same expected revision succeed again without writing.
      next = (await this.client.appendToStream(streamId, data, { expectedRevision: toExpected(expectedRevision) })).nextExpectedRevision;
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) : 'no_stream';
        throw new WrongExpectedRevisionError(streamId, expectedRevision, actual);
      }
      throw err;
    }
    // The append result's position is the write's, not necessarily its last event's: read that event back.
    const [last] = await this.read(this.client.readStream(streamId, { fromRevision: next, maxCount: 1, direction: FORWARDS }));
    if (!last) throw new Error(`Stream ${streamId}: revision ${next} not readable after append`);
    return { nextExpectedRevision: Number(next), position: last.position };
  }

  private async read(source: AsyncIterable<ResolvedEvent | AllStreamResolvedEvent>): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    try {
      for await (const resolved of source) {
        const e = this.toStored(resolved);
        if (e) out.push(e);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  readStream(streamId: string): Promise<StoredEvent[]> {
    return this.read(this.client.readStream(streamId, { fromRevision: START, direction: FORWARDS }));
  }

  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    let from = readFrom(afterPosition);
    let after = afterPosition;
    const page = Math.max(limit, 100);
    // $all holds system and other applications' events too: page until `limit` of ours.
    for (;;) {
      let seen = 0;
      let lastPosition: Position | undefined;
      for await (const resolved of this.client.readAll({ fromPosition: from, maxCount: page, direction: FORWARDS })) {
        seen++;
        lastPosition = resolved.event?.position ?? lastPosition;
        const e = this.toStored(resolved);
        if (e && e.position > after && out.length < limit) out.push(e);
      }
      if (out.length >= limit || seen < page || !lastPosition) return out;
      from = lastPosition;
      after = Math.max(after, toPosition(lastPosition));
    }
  }

  async headPosition(): Promise<number> {
    let from: ReadPosition = END;
    for (;;) {
      let seen = 0;
      let lastPosition: Position | undefined;
      for await (const resolved of this.client.readAll({ fromPosition: from, maxCount: 100, direction: BACKWARDS })) {
        seen++;
        lastPosition = resolved.event?.position ?? lastPosition;
        const e = this.toStored(resolved);
        if (e) return e.position;
      }
      if (seen < 100 || !lastPosition) return 0;
      from = lastPosition;
    }
  }

  /**
   * A catch-up subscription filtered to our streams on the server. Events are handled one
   * at a time (async iteration pulls the next only after the handler returned). A dropped
   * connection or a failing handler re-subscribes after the last handled event, with
   * back-off, so the caller's position is never skipped.
   */
  subscribeToAll(afterPosition: number, handler: EventHandler, monitor?: SubscriptionMonitor): Subscription {
    let stopped = false;
    let handledUpTo = afterPosition;
    let current: { unsubscribe(): Promise<void> } | null = null;
    let wake: (() => void) | null = null;
    const loop = (async () => {
      let delay = this.retry.first;
      while (!stopped) {
        try {
          const sub = this.client.subscribeToAll({
            fromPosition: readFrom(handledUpTo),
            filter: streamNameFilter({ prefixes: this.prefixes }),
          });
          current = sub;
          for await (const resolved of sub) {
            if (stopped) break;
            const e = this.toStored(resolved);
            if (!e || e.position <= handledUpTo) continue;
            await handler(e);
            handledUpTo = e.position;
            if (delay !== this.retry.first) monitor?.recovered();
            delay = this.retry.first;
          }
        } catch (err) {
          if (stopped) break;
          this.logger.warn(`Subscription to $all dropped after position ${handledUpTo}; again in ${delay} ms: ${(err as Error).message}`);
          monitor?.failed(err as Error);
        }
        if (stopped) break;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        delay = Math.min(delay * 2, this.retry.max);
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        await current?.unsubscribe().catch(() => undefined);
        await loop;
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
