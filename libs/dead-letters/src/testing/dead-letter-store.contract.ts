import type { StoredEvent } from '@app/contracts';
import { deadLetterId, type DeadLetterStore } from '../dead-letters.port';

const event = (id: string, position: number): StoredEvent => ({
  event_id: id,
  type: 'SourceParsed',
  data: { total_rows: 3 },
  stream_id: 'run-r1',
  revision: 2,
  position,
  recorded_at: '2026-01-01T00:00:00.000Z',
  metadata: { organization_id: 'o1', correlation_id: 'c', causation_id: 'c', occurred_at: '2026-01-01T00:00:00.000Z', schema_version: 1 },
});
const letter = (group: string, e: StoredEvent, deadAt: string) => ({
  id: deadLetterId(group, e),
  group,
  lane: '0',
  event: e,
  error: { name: 'TypeError', message: 'x is not a function' },
  attempts: 3,
  dead_at: deadAt,
});

/** What every DeadLetterStore adapter must do. */
export function deadLetterStoreContract(name: string, create: () => Promise<DeadLetterStore>): void {
  describe(`DeadLetterStore contract: ${name}`, () => {
    let store: DeadLetterStore;
    beforeEach(async () => {
      store = await create();
    });
    afterEach(() => store.close());

    it('keeps the whole event and the error, newest first, one letter per group and event', async () => {
      await store.record(letter('mapping', event('e1', 5), '2026-01-01T00:00:01.000Z'));
      await store.record(letter('output', event('e2', 9), '2026-01-01T00:00:02.000Z'));
      await store.record({ ...letter('mapping', event('e1', 5), '2026-01-01T00:00:03.000Z'), attempts: 4 });
      const all = await store.list(10);
      expect(all.map((l) => [l.id, l.attempts])).toEqual([
        ['mapping/e1', 4],
        ['output/e2', 3],
      ]);
      expect(await store.get('output/e2')).toEqual({
        ...letter('output', event('e2', 9), '2026-01-01T00:00:02.000Z'),
        replay_requested_at: null,
        replayed_at: null,
        replay_outcome: null,
      });
      expect(await store.get('nope')).toBeNull();
    });

    it('hands a requested replay to the letter group once, until it is asked for again', async () => {
      await store.record(letter('mapping', event('e1', 5), '2026-01-01T00:00:01.000Z'));
      expect(await store.requestReplay('mapping/e1', '2026-01-02T00:00:00.000Z')).toBe(true);
      expect(await store.requestReplay('missing', '2026-01-02T00:00:00.000Z')).toBe(false);
      expect((await store.replaysDue(['output'], 10)).map((l) => l.id)).toEqual([]);
      expect((await store.replaysDue(['mapping', 'output'], 10)).map((l) => l.id)).toEqual(['mapping/e1']);
      expect(await store.claimReplay('mapping/e1')).toBe(true);
      expect(await store.claimReplay('mapping/e1')).toBe(false); // another replica: already taken
      expect(await store.replaysDue(['mapping'], 10)).toEqual([]);
      await store.markReplayed('mapping/e1', 'handled');
      expect(await store.get('mapping/e1')).toMatchObject({ replayed_at: '2026-01-02T00:00:00.000Z', replay_outcome: 'handled' });
      await store.requestReplay('mapping/e1', '2026-01-03T00:00:00.000Z');
      expect((await store.replaysDue(['mapping'], 10)).map((l) => l.id)).toEqual(['mapping/e1']);
      expect(await store.claimReplay('mapping/e1')).toBe(true);
    });
  });
}
