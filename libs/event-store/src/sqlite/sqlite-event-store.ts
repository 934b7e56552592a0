import Database from 'better-sqlite3';
import { backOff } from 'exponential-backoff';
import { EventEmitter } from 'node:events';
import { isJsonObject, type NewEvent, type StoredEvent } from '@app/contracts';
import {
  type AppendResult,
  type CheckpointStore,
  type EventHandler,
  type EventStore,
  type ExpectedRevision,
  type Subscription,
  type SubscriptionMonitor,
  WrongExpectedRevisionError,
} from '../event-store.port';
import { openSqlite } from '@app/sqlite';

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

/**
 * A stored text that is not JSON (a row written by hand, a damaged file) is handed over as the text itself,
 * as EventStoreDB's client hands over such an event's data. Throwing here would stop every subscription at
 * that row for good (its pass would fail on it again and again) and fail every read of its run's stream;
 * handed over, the event's contract check refuses it like any malformed event, and only its run is touched
 * (docs/decisions.md, "A malformed event in a run's stream").
 */
const parsedOrText = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * Metadata is an object, or its text: every consumer reads members of it (`organization_id`) before any check, and
 * a member of a string is undefined where one of `null` throws, which would stop their lanes as a throwing read did.
 */
const metadataOrText = (text: string): StoredEvent['metadata'] => {
  const parsed = parsedOrText(text);
  return (isJsonObject(parsed) ? parsed : text) as unknown as StoredEvent['metadata'];
};

const toStored = (r: EventRow): StoredEvent => ({
  position: r.position,
  stream_id: r.stream_id,
  revision: r.revision,
  event_id: r.event_id,
  type: r.type,
  data: parsedOrText(r.data),
  metadata: metadataOrText(r.metadata),
  recorded_at: r.recorded_at,
});

/**
 * Event store on one SQLite file. SQLite has a single writer, so global positions are
 * committed in order and a reader never sees position N+1 before N (no high-water-mark
 * gaps). Other processes that share the file are found by polling.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private readonly stmts;

  constructor(
    file: string,
    private readonly pollIntervalMs = 250,
    /** Back-off of a subscription whose read or handler failed (ms). */
    private readonly retry = { first: 200, max: 5000 },
  ) {
    this.db = openSqlite(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        event_id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        UNIQUE (stream_id, revision)
      );`);
    this.appended.setMaxListeners(0);
    this.stmts = {
      lastRevision: this.db.prepare<[string], { r: number | null }>('SELECT MAX(revision) AS r FROM events WHERE stream_id = ?'),
      byEventId: this.db.prepare<[string], EventRow>('SELECT * FROM events WHERE event_id = ?'),
      insert: this.db.prepare(
        'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      readStream: this.db.prepare<[string], EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY revision'),
      readAll: this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events'),
    };
  }

  private readonly appendTx = (streamId: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
    const last = this.stmts.lastRevision.get(streamId)?.r ?? null;
    const existing = events.length > 0 ? this.stmts.byEventId.get(events[0].event_id) : undefined;
    if (existing) {
      // Idempotent append: the same events were already written by an earlier attempt.
      if (existing.stream_id !== streamId) throw new Error(`Event ${existing.event_id} belongs to stream ${existing.stream_id}`);
      const lastOfBatch = this.stmts.byEventId.get(events[events.length - 1].event_id);
      if (!lastOfBatch) throw new WrongExpectedRevisionError(streamId, expected, last ?? 'no_stream');
      return { nextExpectedRevision: lastOfBatch.revision, position: lastOfBatch.position };
    }
    if (expected === 'no_stream' && last !== null) throw new WrongExpectedRevisionError(streamId, expected, last);
    if (typeof expected === 'number' && expected !== last) throw new WrongExpectedRevisionError(streamId, expected, last ?? 'no_stream');
    let revision = last ?? -1;
    let position = 0;
    const recordedAt = new Date().toISOString();
    for (const e of events) {
      revision += 1;
      const info = this.stmts.insert.run(
        streamId,
        revision,
        e.event_id,
        e.type,
        JSON.stringify(e.data),
        JSON.stringify(e.metadata),
        recordedAt,
      );
      position = Number(info.lastInsertRowid);
    }
    return { nextExpectedRevision: revision, position };
  };

  async appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('Nothing to append');
    // IMMEDIATE takes the write lock before reading the last revision, so two processes
    // cannot both pass the expected-revision check.
    const result = this.db.transaction(this.appendTx).immediate(streamId, events, expectedRevision);
    this.appended.emit('appended', result.position);
    return result;
  }

  async readStream(streamId: string): Promise<StoredEvent[]> {
    return this.stmts.readStream.all(streamId).map(toStored);
  }

  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    return this.stmts.readAll.all(afterPosition, limit).map(toStored);
  }

  async headPosition(): Promise<number> {
    return this.stmts.head.get()?.p ?? 0;
  }

  subscribeToAll(afterPosition: number, handler: EventHandler, monitor?: SubscriptionMonitor): Subscription {
    let stopped = false;
    let position = afterPosition;
    let wake: (() => void) | null = null;
    const onAppend = () => wake?.();
    this.appended.on('appended', onAppend);
    const waitForMore = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, this.pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });
    /** One pass: the next batch after the last handled event, handled in order; how many there were. */
    const pass = async (): Promise<number> => {
      if (stopped) return 0;
      const batch = await this.readAll(position, 500);
      for (const event of batch) {
        if (stopped) return 0;
        await handler(event);
        position = event.position;
      }
      return batch.length;
    };
    let failing = false;
    const loop = (async () => {
      while (!stopped) {
        // A failed read or handler starts the pass again after the last handled event, with back-off,
        // until it works or the subscription is stopped: the loop never ends on an error.
        const handled = await backOff(pass, {
          numOfAttempts: Number.MAX_SAFE_INTEGER,
          startingDelay: this.retry.first,
          maxDelay: this.retry.max,
          jitter: 'full',
          retry: (err: Error) => {
            if (stopped) return false;
            failing = true;
            monitor?.failed(err);
            return true;
          },
        });
        if (failing) {
          failing = false;
          monitor?.recovered();
        }
        if (handled === 0) await waitForMore();
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        this.appended.off('appended', onAppend);
        await loop.catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** Checkpoints in their own table of a SQLite file (the event store's, in embedded mode). */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly db: Database.Database;
  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL)');
  }
  async load(name: string): Promise<number> {
    const row = this.db.prepare<[string], { position: number }>('SELECT position FROM checkpoints WHERE name = ?').get(name);
    return row?.position ?? 0;
  }
  async save(name: string, position: number): Promise<void> {
    this.db
      // Never backwards: a late or replayed save cannot undo a newer one.
      .prepare(
        'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = MAX(position, excluded.position)',
      )
      .run(name, position);
  }
  async list(): Promise<Record<string, number>> {
    const rows = this.db.prepare<[], { name: string; position: number }>('SELECT name, position FROM checkpoints').all();
    return Object.fromEntries(rows.map((r) => [r.name, r.position]));
  }
  async close(): Promise<void> {
    this.db.close();
  }
}
