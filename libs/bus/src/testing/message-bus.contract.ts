import { randomUUID } from 'node:crypto';
import type { BusRecord, MessageBus } from '../message-bus.port';

let position = 0;
export const busRecord = (key: string, type: string): BusRecord => ({
  key,
  value: {
    event_id: randomUUID(),
    type,
    data: {},
    stream_id: key,
    revision: 0,
    position: ++position,
    recorded_at: new Date().toISOString(),
    metadata: { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: new Date().toISOString(), schema_version: 1 },
  },
});

const waitFor = async (cond: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** The behaviour every MessageBus adapter must have; `create` gives a fresh bus and unique topic. */
export function messageBusContract(name: string, create: () => Promise<{ bus: MessageBus; topic: string }>): void {
  describe(`MessageBus contract: ${name}`, () => {
    let bus: MessageBus;
    let topic: string;
    beforeEach(async () => ({ bus, topic } = await create()));
    afterEach(async () => bus.close());

    it('delivers every record to every consumer group, in order per key', async () => {
      const a: string[] = [];
      const b: string[] = [];
      const sa = await bus.subscribe(topic, `a-${randomUUID()}`, async (r) => {
        a.push(r.value.type);
      });
      const sb = await bus.subscribe(topic, `b-${randomUUID()}`, async (r) => {
        b.push(r.value.type);
      });
      await bus.publish(topic, [busRecord('k1', '1'), busRecord('k1', '2'), busRecord('k2', 'x'), busRecord('k1', '3')]);
      await waitFor(() => a.length === 4 && b.length === 4);
      for (const seen of [a, b]) expect(seen.filter((t) => t !== 'x')).toEqual(['1', '2', '3']);
      await sa.stop();
      await sb.stop();
    });

    it('redelivers a record whose handler failed, before the next record of its key', async () => {
      const seen: string[] = [];
      let failures = 0;
      const s = await bus.subscribe(topic, `g-${randomUUID()}`, async (r) => {
        if (r.value.type === '1' && failures < 2) {
          failures++;
          throw new Error('transient');
        }
        seen.push(r.value.type);
      });
      await bus.publish(topic, [busRecord('k', '1'), busRecord('k', '2')]);
      await waitFor(() => seen.length === 2);
      expect(seen).toEqual(['1', '2']);
      expect(failures).toBe(2);
      await s.stop();
    });

    it('stops delivering to a stopped subscription', async () => {
      const seen: string[] = [];
      const s = await bus.subscribe(topic, `g-${randomUUID()}`, async (r) => {
        seen.push(r.value.type);
      });
      await bus.publish(topic, [busRecord('k', '1')]);
      await waitFor(() => seen.length === 1);
      await s.stop();
      await bus.publish(topic, [busRecord('k', '2')]);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual(['1']);
    });
  });
}
