import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOPICS, type NewEvent } from '@app/contracts';
import { SqliteCheckpointStore, SqliteEventStore } from '@app/event-store';
import type { BusRecord, MessageBus } from '@app/bus';
import { loopRestarts } from '@app/metrics';
import { loopHealth } from '@app/polling';
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
  sends = 0;
  refuseNext = false;
  /** Event ids Kafka would refuse for good (too large); a send holding one fails whole. */
  tooLarge = new Set<string>();
  async publish(topic: string, records: BusRecord[]) {
    if (this.refuseNext) {
      this.refuseNext = false;
      throw new Error('broker unavailable');
    }
    if (records.some((r) => this.tooLarge.has(r.value.event_id))) {
      throw Object.assign(new Error('The request included a message larger than the max message size the server will accept'), {
        type: 'MESSAGE_TOO_LARGE',
      });
    }
    this.sends++;
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

  it('given stored events, publishes each whole event keyed by its stream, in order, and moves its checkpoint past them', async () => {
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

  it("keeps organizations' streams (the audit log) off the run-events topic, and moves its checkpoint past them", async () => {
    await store.appendToStream('run-a', [newEvent('e1', 'RunCreated')], 'no_stream');
    await store.appendToStream('organization-o1', [newEvent('e2', 'ApiKeyIssued')], 'any');
    await store.appendToStream('run-a', [newEvent('e3', 'SourceUploaded')], 0);
    await store.appendToStream('organization-o1', [newEvent('e4', 'WebhookSecretRotated')], 'any');
    const bus = new RecordingBus();
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:test', lingerMs: 1 });
    await relay.start();
    await until(() => bus.published.length === 2);
    const head = await store.headPosition();
    for (const deadline = Date.now() + 3000; (await checkpoints.load('relay:test')) < head && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await relay.stop();
    expect(bus.published.map((p) => p.record.value.event_id)).toEqual(['e1', 'e3']);
    expect(await checkpoints.load('relay:test')).toBe(head);
  });

  it('reads that fail (the in-process feeder and the relay alike) restart with back-off: down for readiness and counted, then nothing is missed', async () => {
    await store.appendToStream('run-a', [newEvent('e1', 'RunCreated')], 'no_stream');
    const restarts = async () => (await loopRestarts.get()).values.find((v) => v.labels.loop === 'relay:failing/read')?.value ?? 0;
    const before = await restarts();
    const real = store.readAll.bind(store);
    let failing = true;
    jest
      .spyOn(store, 'readAll')
      .mockImplementation((after, limit) => (failing ? Promise.reject(new Error('database is locked')) : real(after, limit)));
    const bus = new RecordingBus();
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:failing' });
    await relay.start();
    await until(() => loopHealth.problems().length > 0);
    expect(loopHealth.problems()).toEqual([{ loop: 'relay:failing/read', problem: expect.stringContaining('database is locked') }]);
    expect(await restarts()).toBeGreaterThan(before);
    failing = false;
    await store.appendToStream('run-a', [newEvent('e2', 'SourceUploaded')], 0);
    await until(() => bus.published.length === 2);
    expect(loopHealth.problems()).toEqual([]);
    expect(bus.published.map((p) => p.record.value.event_id)).toEqual(['e1', 'e2']);
    await relay.stop();
  });

  it('a send that fails is down for readiness until it went through', async () => {
    await store.appendToStream('run-a', [newEvent('e1', 'RunCreated')], 'no_stream');
    const bus = new RecordingBus();
    let refuse = 3;
    const publish = bus.publish.bind(bus);
    const seenDown: string[] = [];
    jest.spyOn(bus, 'publish').mockImplementation(async (topic, records) => {
      if (refuse-- > 0) {
        seenDown.push(...loopHealth.problems().map((p) => p.loop));
        throw new Error('broker unavailable');
      }
      return publish(topic, records);
    });
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:sending', retryDelayMs: { first: 5, max: 10 } });
    await relay.start();
    await until(() => bus.published.length === 1);
    expect(seenDown).toContain('relay:sending/send');
    expect(loopHealth.problems()).toEqual([]);
    await relay.stop();
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

  it('sends in batches (one publish and one checkpoint per batch), in store order', async () => {
    for (let run = 0; run < 5; run++) {
      await store.appendToStream(
        `run-${run}`,
        Array.from({ length: 20 }, (_, i) => newEvent(`r${run}e${i}`, 'OutputProgressed')),
        'no_stream',
      );
    }
    const bus = new RecordingBus();
    const saves = jest.spyOn(checkpoints, 'save');
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:test', maxBatch: 30, lingerMs: 5 });
    await relay.start();
    await until(() => bus.published.length === 100);
    await relay.stop();
    const stored = await store.readAll(0, 200);
    expect(bus.published.map((p) => p.record.value.position)).toEqual(stored.map((e) => e.position));
    expect(bus.sends).toBeLessThanOrEqual(10);
    expect(saves.mock.calls.length).toBe(bus.sends);
    expect(await checkpoints.load('relay:test')).toBe(stored[99].position);
  });

  it('an event the bus refuses for good is handed over and skipped; the rest go on in order', async () => {
    await store.appendToStream(
      'run-a',
      [newEvent('e1', 'RunCreated'), newEvent('big', 'SourceParsed'), newEvent('e3', 'ReviewPrepared')],
      'no_stream',
    );
    const bus = new RecordingBus();
    bus.tooLarge.add('big');
    const refused: string[] = [];
    const relay = new EventRelay(store, bus, checkpoints, {
      name: 'relay:test',
      onRefused: async (event, err) => void refused.push(`${event.event_id}: ${(err as { type?: string }).type}`),
    });
    await relay.start();
    await until(() => bus.published.length === 2);
    await relay.stop();
    expect(bus.published.map((p) => p.record.value.event_id)).toEqual(['e1', 'e3']);
    expect(refused).toEqual(['big: MESSAGE_TOO_LARGE']);
    expect(await checkpoints.load('relay:test')).toBe((await store.readAll(0, 10))[2].position);
  });

  it('nothing is lost when handing over a refused event fails: the batch is sent again, then checkpointed', async () => {
    await store.appendToStream(
      'run-a',
      [newEvent('e1', 'RunCreated'), newEvent('big', 'SourceParsed'), newEvent('e3', 'ReviewPrepared')],
      'no_stream',
    );
    const bus = new RecordingBus();
    bus.tooLarge.add('big');
    let calls = 0;
    const relay = new EventRelay(store, bus, checkpoints, {
      name: 'relay:test',
      retryDelayMs: { first: 5, max: 5 },
      onRefused: async () => {
        if (++calls === 1) throw new Error('dead-letter store unreachable');
      },
    });
    await relay.start();
    await until(() => calls === 2 && bus.published.some((p) => p.record.value.event_id === 'e3'));
    await new Promise((r) => setTimeout(r, 30));
    await relay.stop();
    expect(new Set(bus.published.map((p) => p.record.value.event_id))).toEqual(new Set(['e1', 'e3'])); // e1 maybe twice: at least once
    expect(await checkpoints.load('relay:test')).toBe((await store.readAll(0, 10))[2].position);
  });
});
