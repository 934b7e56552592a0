import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaderLease } from './leader-lease';
import { SqliteLeaseStore } from './sqlite/sqlite-lease-store';

/** Lets fake time pass in 10 ms steps until `cond` holds (at most `ms` of fake time). */
const until = async (cond: () => boolean, ms = 3000) => {
  for (let waited = 0; !cond(); waited += 10) {
    if (waited > ms) throw new Error('condition not met in time');
    await jest.advanceTimersByTimeAsync(10);
  }
};

describe('LeaderLease: one active replica, standbys take over', () => {
  // On fake timers, the leases' clock included: a stalled machine can neither delay a renewal past
  // the 300 ms lease (letting a standby take over from a live leader) nor shorten the wait after a crash.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('only one of two replicas leads; when it stops, the other takes over; a crashed leader is replaced after its lease expires', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'leader-')), 'events.sqlite');
    const clock = () => Date.now(); // the fake one
    const stores = [new SqliteLeaseStore(file, clock), new SqliteLeaseStore(file, clock), new SqliteLeaseStore(file, clock)];
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
      await jest.advanceTimersByTimeAsync(1000); // many renewals, over three leases' length
      expect([a.isLeading, b.isLeading]).toEqual([true, false]);
      await a.stop(); // a graceful stop releases the lease
      await until(() => b.isLeading);
      expect(log).toEqual(['p0 leads', 'p0 stands down', 'p1 leads']);

      // b "crashes": its timer stops without releasing; c only takes over once the lease expired.
      clearInterval((b as unknown as { timer: NodeJS.Timeout }).timer);
      const crashedAt = Date.now();
      await c.start();
      await until(() => c.isLeading);
      expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(250); // b renewed at most 50 ms before the crash
      expect(Date.now() - crashedAt).toBeLessThanOrEqual(300 + 50); // and c tried again at the next renewal after the expiry
      await c.stop();
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
