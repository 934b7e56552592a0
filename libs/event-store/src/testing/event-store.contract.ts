import { randomUUID } from 'node:crypto';
import type { NewEvent, StoredEvent } from '@app/contracts';
import { type EventStore, WrongExpectedRevisionError } from '../event-store.port';

const newEvent = (type: string, data: unknown = {}): NewEvent => ({
  event_id: randomUUID(),
  type,
  data,
  metadata: { organization_id: 'org', correlation_id: 'c', causation_id: 'c', occurred_at: new Date().toISOString(), schema_version: 1 },
});

const waitFor = async (cond: () => boolean, ms = 3000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

/**
 * The behaviour every EventStore adapter must have. Each adapter's spec calls this with
 * a factory for a fresh, empty store.
 */
export function eventStoreContract(name: string, create: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await create();
    });
    afterEach(async () => {
      await store.close();
    });
    const stream = () => `run-${randomUUID()}`;

    it('appends to a new stream and reads it back in revision order with metadata', async () => {
      const s = stream();
      const r = await store.appendToStream(s, [newEvent('A', { n: 1 }), newEvent('B', { n: 2 })], 'no_stream');
      expect(r.nextExpectedRevision).toBe(1);
      const events = await store.readStream(s);
      expect(events.map((e) => [e.type, e.revision, e.data])).toEqual([
        ['A', 0, { n: 1 }],
        ['B', 1, { n: 2 }],
      ]);
      expect(events[0].metadata.organization_id).toBe('org');
      expect(events[1].position).toBeGreaterThan(events[0].position);
      expect(r.position).toBe(events[1].position);
    });

    it('refuses an append with a wrong expected revision and writes nothing', async () => {
      const s = stream();
      await store.appendToStream(s, [newEvent('A')], 'no_stream');
      await expect(store.appendToStream(s, [newEvent('B')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.appendToStream(s, [newEvent('B')], 5)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.appendToStream(stream(), [newEvent('B')], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await store.appendToStream(s, [newEvent('C')], 0);
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'C']);
    });

    it('lets exactly one of two concurrent appends at the same revision win', async () => {
      const s = stream();
      await store.appendToStream(s, [newEvent('A')], 'no_stream');
      const results = await Promise.allSettled([
        store.appendToStream(s, [newEvent('B1')], 0),
        store.appendToStream(s, [newEvent('B2')], 0),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('treats re-appending the same event ids as a no-op', async () => {
      const s = stream();
      const batch = [newEvent('A'), newEvent('B')];
      const first = await store.appendToStream(s, batch, 'no_stream');
      const again = await store.appendToStream(s, batch, 'no_stream');
      expect(again).toEqual(first);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('reads all streams in global order from a position', async () => {
      const start = await store.headPosition();
      const s1 = stream();
      const s2 = stream();
      await store.appendToStream(s1, [newEvent('A')], 'no_stream');
      await store.appendToStream(s2, [newEvent('B')], 'no_stream');
      await store.appendToStream(s1, [newEvent('C')], 0);
      const all = await store.readAll(start, 100);
      expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      expect(await store.readAll(all[0].position, 1)).toEqual([all[1]]);
      expect(await store.headPosition()).toBe(all[2].position);
    });

    it('catch-up subscription delivers past then live events in order, from a checkpoint', async () => {
      const s = stream();
      await store.appendToStream(s, [newEvent('A'), newEvent('B')], 'no_stream');
      const past = await store.readStream(s);
      const seen: StoredEvent[] = [];
      const sub = store.subscribeToAll(past[0].position, async (e) => {
        if (e.stream_id === s) seen.push(e);
      });
      await store.appendToStream(s, [newEvent('C')], 1);
      await waitFor(() => seen.length === 2);
      await sub.stop();
      expect(seen.map((e) => e.type)).toEqual(['B', 'C']);
    });

    it('awaits the handler before delivering the next event', async () => {
      const s = stream();
      const start = await store.headPosition();
      await store.appendToStream(s, [newEvent('A'), newEvent('B'), newEvent('C')], 'no_stream');
      let active = 0;
      let maxActive = 0;
      const seen: string[] = [];
      const sub = store.subscribeToAll(start, async (e) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 5));
        seen.push(e.type);
        active--;
      });
      await waitFor(() => seen.length === 3);
      await sub.stop();
      expect(maxActive).toBe(1);
    });
  });
}
