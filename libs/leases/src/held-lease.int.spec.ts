import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdLease } from './held-lease';
import { SqliteLeaseStore } from './sqlite/sqlite-lease-store';

describe('holdLease: a lease held as long as this process works', () => {
  // Fake timers and the leases' clock on them: the renewals and the expiry are exact.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  const stores = () => {
    const file = join(mkdtempSync(join(tmpdir(), 'held-')), 'events.sqlite');
    const clock = () => Date.now();
    return [new SqliteLeaseStore(file, clock), new SqliteLeaseStore(file, clock)] as const;
  };

  it('is renewed past its ttl while held, refused to others meanwhile, and free once released', async () => {
    const [mine, theirs] = stores();
    try {
      const held = await holdLease(mine, 'upload:r1', 'gateway/req-1', 300);
      expect(held).not.toBeNull();
      expect(await holdLease(theirs, 'upload:r1', 'sweeper', 300)).toBeNull();
      // Ten ttls later the work still holds it.
      await jest.advanceTimersByTimeAsync(3000);
      expect(await theirs.acquire('upload:r1', 'sweeper', 300)).toBe(false);
      await held!.release();
      await held!.release(); // twice is once
      expect(await theirs.acquire('upload:r1', 'sweeper', 300)).toBe(true);
      // No renewal after the release takes it back.
      await jest.advanceTimersByTimeAsync(1000);
      expect((await theirs.list('upload:', 10)).map((l) => l.holder)).toEqual(['sweeper']);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it('expires its ttl after the holder stops renewing (a process that died)', async () => {
    const [mine, theirs] = stores();
    const held = await holdLease(mine, 'upload:r2', 'gateway/req-2', 300);
    try {
      expect(held).not.toBeNull();
      await mine.close(); // renewals now fail, as a dead process's would never come
      await jest.advanceTimersByTimeAsync(200);
      expect(await theirs.acquire('upload:r2', 'sweeper', 300)).toBe(false);
      await jest.advanceTimersByTimeAsync(150);
      expect(await theirs.acquire('upload:r2', 'sweeper', 300)).toBe(true);
    } finally {
      await held?.release(); // stops the renewals (its store is closed: it says so and lets the lease expire)
      await theirs.close();
    }
  });
});
