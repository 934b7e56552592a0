import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOPICS, type NewEvent } from '@app/contracts';
import { SqliteCheckpointStore, SqliteEventStore } from '@app/event-store';
import type { BusRecord, MessageBus } from '@app/bus';
import { EventRelay } from './event-relay';

const newEvent = (id: string, type: string): NewEvent => ({
  event_id: id,
  type,
  data: { id },
  metadata: { organization_id: 'o1', correlation_id: 'c', causation_id: 'c', occurred_at: '2026-01-01T00:00:00.000Z', schema_version: 1 },
});

/** A bus that records what it was given and can refuse the next publish. */
class RecordingBus implements MessageBus {
  published: Array<{ topic: string; record: BusRecord }> = [];
  refuseNext = false;
  async publish(topic: string, records: BusRecord[]) {
    if (this.refuseNext) {
      this.refuseNext = false;
      throw new Error('broker unavailable');
    }
    for (const record of records) this.published.push({ topic, record });
  }
  async subscribe(): Promise<never> {
    throw new Error('not used');
  }
  async close() {}
}

const until = async (cond: () => boolean) => {
  for (const deadline = Date.now() + 3000; !cond();) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('EventRelay (given / when / then)', () => {
  let store: SqliteEventStore;
  let checkpoints: SqliteCheckpointStore;
  beforeEach(() => {
    const file = join(mkdtempSync(join(tmpdir(), 'relay-')), 'events.sqlite');
    store = new SqliteEventStore(file, 10);
    checkpoints = new SqliteCheckpointStore(file);
  });
  afterEach(async () => {
    await store.close();
    await checkpoints.close();
  });

  it('given stored events, publishes each whole event keyed by its stream, in order, and moves its checkpoint after each', async () => {
    await store.appendToStream('run-a', [newEvent('e1', 'RunCreated'), newEvent('e2', 'SourceUploaded')], 'no_stream');
    await store.appendToStream('run-b', [newEvent('e3', 'RunCreated')], 'no_stream');
    const bus = new RecordingBus();
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:test' });
    await relay.start();
    await until(() => bus.published.length === 3);
    await relay.stop();
    const stored = await store.readAll(0, 10);
    expect(bus.published).toEqual(stored.map((e) => ({ topic: TOPICS.runEvents, record: { key: e.stream_id, value: e } })));
    expect(await checkpoints.load('relay:test')).toBe(stored[2].position);
  });

  it('restarts after its checkpoint: nothing already published is sent again, nothing new is missed', async () => {
    await store.appendToStream('run-a', [newEvent('e1', 'RunCreated')], 'no_stream');
    const bus = new RecordingBus();
    const first = new EventRelay(store, bus, checkpoints, { name: 'relay:test' });
    await first.start();
    await until(() => bus.published.length === 1);
    await first.stop();
    await store.appendToStream('run-a', [newEvent('e2', 'SourceUploaded')], 0);
    const second = new EventRelay(store, bus, checkpoints, { name: 'relay:test' });
    await second.start();
    await until(() => bus.published.length === 2);
    await second.stop();
    expect(bus.published.map((p) => p.record.value.event_id)).toEqual(['e1', 'e2']);
  });

  it('a refused publish is tried again (the subscription waits), then the checkpoint moves past the event', async () => {
    await store.appendToStream('run-a', [newEvent('e1', 'RunCreated')], 'no_stream');
    const bus = new RecordingBus();
    bus.refuseNext = true;
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:test', retryDelayMs: { first: 5, max: 5 } });
    await relay.start();
    await until(() => bus.published.length === 1);
    await relay.stop();
    expect(bus.published.map((p) => p.record.value.event_id)).toEqual(['e1']);
    expect(await checkpoints.load('relay:test')).toBe((await store.readAll(0, 1))[0].position);
  });
});
