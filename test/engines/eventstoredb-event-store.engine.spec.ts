import { randomUUID } from 'node:crypto';
import { EventStoreDbEventStore } from '@app/event-store/eventstoredb/eventstoredb-event-store';
import { eventStoreContract } from '../../libs/event-store/src/testing/event-store.contract';
import { describeWithEngine } from '../support/engine-gate';

const meta = {
  organization_id: 'o',
  correlation_id: 'corr',
  causation_id: 'cause',
  occurred_at: new Date().toISOString(),
  schema_version: 1,
};

describeWithEngine('EVENTSTORE_URL', 'esdb://127.0.0.1:2113?tls=false', 'EventStoreDB adapter', (url) => {
  eventStoreContract('EventStoreDB', async () => new EventStoreDbEventStore(url, { resubscribeDelayMs: { first: 50, max: 500 } }));

  describe('EventStoreDB specifics', () => {
    let store: EventStoreDbEventStore;
    beforeEach(() => {
      store = new EventStoreDbEventStore(url);
    });
    afterEach(async () => store.close());

    it('skips streams that are not ours in $all and keeps our metadata without ESDB keys', async () => {
      const start = await store.headPosition();
      const foreign = new EventStoreDbEventStore(url, { streamPrefixes: ['other-'] });
      await foreign.appendToStream(`other-${randomUUID()}`, [{ event_id: randomUUID(), type: 'X', data: {}, metadata: meta }], 'no_stream');
      const s = `run-${randomUUID()}`;
      await store.appendToStream(s, [{ event_id: randomUUID(), type: 'A', data: { a: 1 }, metadata: meta }], 'no_stream');
      const all = await store.readAll(start, 10);
      expect(all.map((e) => [e.stream_id, e.type])).toEqual([[s, 'A']]);
      expect(all[0].metadata).toEqual(meta);
      await foreign.close();
    });

    it('a subscription started after the middle event of one append delivers the rest of that append', async () => {
      const s = `run-${randomUUID()}`;
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      await store.appendToStream(
        s,
        ids.map((id, i) => ({ event_id: id, type: `E${i}`, data: {}, metadata: meta })),
        'no_stream',
      );
      const [, middle] = await store.readStream(s);
      const seen: string[] = [];
      const sub = store.subscribeToAll(middle.position, async (e) => {
        if (e.stream_id === s) seen.push(e.type);
      });
      const until = Date.now() + 5000;
      while (seen.length < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      await sub.stop();
      expect(seen).toEqual(['E2']);
    });
  });
});
