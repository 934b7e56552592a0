import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaderLease } from './leader-lease';
import { SqliteLeaseStore } from './sqlite/sqlite-lease-store';

const until = async (cond: () => boolean, ms = 3000) => {
  for (const deadline = Date.now() + ms; !cond();) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('LeaderLease: one active replica, standbys take over', () => {
  it('only one of two replicas leads; when it stops, the other takes over; a crashed leader is replaced after its lease expires', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'leader-')), 'events.sqlite');
    const stores = [new SqliteLeaseStore(file), new SqliteLeaseStore(file), new SqliteLeaseStore(file)];
    const log: string[] = [];
    const replica = (i: number) =>
      new LeaderLease(
        stores[i],
        'relay',
        `p${i}`,
        { ttlMs: 300, renewMs: 50 },
        {
          lead: async () => void log.push(`p${i} leads`),
          standDown: async () => void log.push(`p${i} stands down`),
        },
      );
    const [a, b, c] = [replica(0), replica(1), replica(2)];
    try {
      await a.start();
      await b.start();
      await new Promise((r) => setTimeout(r, 200));
      expect([a.isLeading, b.isLeading]).toEqual([true, false]);
      await a.stop(); // a graceful stop releases the lease
      await until(() => b.isLeading);
      expect(log).toEqual(['p0 leads', 'p0 stands down', 'p1 leads']);

      // b "crashes": its timer stops without releasing; c only takes over once the lease expired.
      clearInterval((b as unknown as { timer: NodeJS.Timeout }).timer);
      const crashedAt = Date.now();
      await c.start();
      await until(() => c.isLeading);
      expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(200);
      await c.stop();
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
