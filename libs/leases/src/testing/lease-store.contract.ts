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

    it('lists the leases of a prefix with their notes, held and expired, oldest expiry first; a renewal keeps the note', async () => {
      expect(await a.acquire('step/output/run-1/7', 'p1', 30_000, '{"event":1}')).toBe(true);
      clock += 1_000;
      expect(await a.acquire('step/output/run-2/9', 'p2', 10_000, '{"event":2}')).toBe(true);
      expect(await a.acquire('step/ingestion/run-1/3', 'p1', 10_000, 'other group')).toBe(true);
      expect(await a.acquire('step/output/run-1/7', 'p1', 60_000)).toBe(true); // renewal: note kept
      clock += 20_000; // run-2's lease has expired, run-1's has not
      expect(await b.list('step/output/', 10)).toEqual([
        { name: 'step/output/run-2/9', holder: 'p2', expiresAt: 1_011_000, note: '{"event":2}' },
        { name: 'step/output/run-1/7', holder: 'p1', expiresAt: 1_061_000, note: '{"event":1}' },
      ]);
      await a.release('step/output/run-2/9', 'p2');
      expect((await b.list('step/output/', 10)).map((l) => l.name)).toEqual(['step/output/run-1/7']);
      expect(await b.list('step/out_%', 10)).toEqual([]); // no pattern characters
    });
  });
}
