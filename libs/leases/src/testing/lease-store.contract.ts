import type { LeaseStore } from '../leases.port';

/** What every LeaseStore adapter must do; `create(now)` opens a store whose clock is `now`. */
export function leaseStoreContract(name: string, create: (now: () => number) => Promise<LeaseStore>): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let clock = 1_000_000;
    let a: LeaseStore;
    let b: LeaseStore;
    beforeEach(async () => {
      clock = 1_000_000;
      a = await create(() => clock);
      b = a;
    });
    afterEach(() => a.close());

    it('one holder at a time; the holder renews; another takes over only after it expired', async () => {
      expect(await a.acquire('relay', 'p1', 10_000)).toBe(true);
      expect(await b.acquire('relay', 'p2', 10_000)).toBe(false);
      clock += 9_000;
      expect(await a.acquire('relay', 'p1', 10_000)).toBe(true); // renewed until 1_019_000
      clock += 9_000;
      expect(await b.acquire('relay', 'p2', 10_000)).toBe(false);
      clock += 1_001;
      expect(await b.acquire('relay', 'p2', 10_000)).toBe(true);
      expect(await a.acquire('relay', 'p1', 10_000)).toBe(false);
    });

    it('a released lease is free at once; only its holder can release it; names are independent', async () => {
      expect(await a.acquire('webhook:r1', 'p1', 60_000)).toBe(true);
      expect(await a.acquire('webhook:r2', 'p2', 60_000)).toBe(true);
      await b.release('webhook:r1', 'p2');
      expect(await b.acquire('webhook:r1', 'p2', 60_000)).toBe(false);
      await a.release('webhook:r1', 'p1');
      expect(await b.acquire('webhook:r1', 'p2', 60_000)).toBe(true);
    });
  });
}
