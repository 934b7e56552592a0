import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdLease } from './held-lease';
import type { LeaseStore } from './leases.port';
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

  it('is given back after a renewal under way has landed, not before (else the renewal would take it again)', async () => {
    const calls: string[] = [];
    let landRenewal = () => {};
    let renewals = 0;
    const store = {
      acquire: async () => {
        if (renewals++ === 0) return true; // the first acquire: taken
        calls.push('renewal sent');
        await new Promise<void>((resolve) => (landRenewal = resolve));
        calls.push('renewal landed');
        return true;
      },
      release: async () => void calls.push('released'),
    } as unknown as LeaseStore;
    const held = (await holdLease(store, 'upload:r3', 'gateway/req-3', 300))!;
    await jest.advanceTimersByTimeAsync(100); // a renewal is sent, and hangs
    const releasing = held.release();
    await jest.advanceTimersByTimeAsync(10);
    expect(calls).toEqual(['renewal sent']);
    landRenewal();
    await releasing;
    expect(calls).toEqual(['renewal sent', 'renewal landed', 'released']);
  });

  it('is given back anyway when a renewal never lands (a store that hangs does not hold up the work)', async () => {
    const calls: string[] = [];
    let first = true;
    const store = {
      acquire: async () => (first ? ((first = false), true) : new Promise<boolean>(() => undefined)),
      release: async () => void calls.push('released'),
    } as unknown as LeaseStore;
    const held = (await holdLease(store, 'upload:r4', 'gateway/req-4', 300))!;
    await jest.advanceTimersByTimeAsync(100);
    const releasing = held.release();
    await jest.advanceTimersByTimeAsync(100);
    await releasing;
    expect(calls).toEqual(['released']);
  });
});
