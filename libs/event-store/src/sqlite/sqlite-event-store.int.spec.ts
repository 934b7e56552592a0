import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointStoreContract } from '../testing/checkpoint-store.contract';
import { eventStoreContract } from '../testing/event-store.contract';
import { SqliteCheckpointStore, SqliteEventStore } from './sqlite-event-store';

eventStoreContract('SQLite', async () => new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'es-')), 'events.sqlite'), 20));

checkpointStoreContract('SQLite', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'cp-')), 'events.sqlite');
  return {
    store: new SqliteCheckpointStore(file),
    reopen: async () => new SqliteCheckpointStore(file),
    close: (s) => (s as SqliteCheckpointStore).close(),
  };
});

describe('SqliteEventStore across processes', () => {
  it('two store instances on one file (as two processes) see each other by polling', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'es2-')), 'events.sqlite');
    const writer = new SqliteEventStore(file, 20);
    const reader = new SqliteEventStore(file, 20);
    const seen: string[] = [];
    const sub = reader.subscribeToAll(0, async (e) => {
      seen.push(e.type);
    });
    await writer.appendToStream(
      'run-x',
      [
        {
          event_id: 'e1',
          type: 'A',
          data: {},
          metadata: { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: '', schema_version: 1 },
        },
      ],
      'no_stream',
    );
    const until = Date.now() + 2000;
    while (seen.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    expect(seen).toEqual(['A']);
    await writer.close();
    await reader.close();
  });
});

describe('SqliteEventStore subscription when reads fail', () => {
  const event = (id: string) => ({
    event_id: id,
    type: 'A',
    data: {},
    metadata: { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: '', schema_version: 1 },
  });

  it('starts again after the last handled event, with back-off, telling its monitor; a failing handler gets its event again', async () => {
    const store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'es-fail-')), 'events.sqlite'), 10, { first: 5, max: 20 });
    await store.appendToStream('run-x', [event('e1'), event('e2')], 'no_stream');
    const real = store.readAll.bind(store);
    let failReads = 3;
    jest
      .spyOn(store, 'readAll')
      .mockImplementation((after, limit) => (failReads-- > 0 ? Promise.reject(new Error('disk I/O error')) : real(after, limit)));
    const monitor = { failed: jest.fn(), recovered: jest.fn() };
    const seen: string[] = [];
    let failHandler = 1;
    const sub = store.subscribeToAll(
      0,
      async (e) => {
        if (e.event_id === 'e2' && failHandler-- > 0) throw new Error('handler failed');
        seen.push(e.event_id);
      },
      monitor,
    );
    for (const until = Date.now() + 5000; seen.length < 2 && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(['e1', 'e2']);
    expect(monitor.failed.mock.calls.map(([err]) => (err as Error).message)).toEqual([
      'disk I/O error',
      'disk I/O error',
      'disk I/O error',
      'handler failed',
    ]);
    expect(monitor.recovered).toHaveBeenCalled();
    // Live events still arrive afterwards: the loop did not end.
    await store.appendToStream('run-x', [event('e3')], 1);
    for (const until = Date.now() + 5000; seen.length < 3 && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(['e1', 'e2', 'e3']);
    await sub.stop();
    await store.close();
  });

  it('stop() ends a subscription whose reads keep failing', async () => {
    const store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'es-fail-')), 'events.sqlite'), 10, { first: 5, max: 20 });
    jest.spyOn(store, 'readAll').mockRejectedValue(new Error('disk I/O error'));
    const monitor = { failed: jest.fn(), recovered: jest.fn() };
    const sub = store.subscribeToAll(0, async () => undefined, monitor);
    for (const until = Date.now() + 5000; monitor.failed.mock.calls.length < 3 && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 5));
    expect(monitor.failed.mock.calls.length).toBeGreaterThanOrEqual(3);
    await sub.stop();
    const calls = monitor.failed.mock.calls.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(monitor.failed.mock.calls.length).toBe(calls);
    await store.close();
  });
});

describe('SqliteEventStore with a row that is not JSON (written by hand, a damaged file)', () => {
  const metadata = { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: '', schema_version: 1 };
  const event = (id: string) => ({ event_id: id, type: 'A', data: { n: id }, metadata });

  it('hands the text over, in the stream and in order, and a subscription goes on past it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'es-text-')), 'events.sqlite');
    const store = new SqliteEventStore(file, 10, { first: 5, max: 20 });
    await store.appendToStream('run-x', [event('e1')], 'no_stream');
    const raw = new Database(file);
    raw
      .prepare('INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('run-x', 1, 'e2', 'A', '{"n": "e2", ', 'not json', new Date().toISOString());
    raw.close();
    await store.appendToStream('run-x', [event('e3')], 1);

    const stream = await store.readStream('run-x');
    expect(stream.map((e) => [e.event_id, e.data, e.metadata])).toEqual([
      ['e1', { n: 'e1' }, metadata],
      ['e2', '{"n": "e2", ', 'not json'],
      ['e3', { n: 'e3' }, metadata],
    ]);
    expect((await store.readAll(0, 10)).map((e) => e.event_id)).toEqual(['e1', 'e2', 'e3']);

    const seen: string[] = [];
    const failures: unknown[] = [];
    const sub = store.subscribeToAll(0, async (e) => void seen.push(e.event_id), {
      failed: (err) => failures.push(err),
      recovered: () => undefined,
    });
    for (const until = Date.now() + 2000; seen.length < 3 && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    await store.close();
    expect([seen, failures]).toEqual([['e1', 'e2', 'e3'], []]);
  });
});
