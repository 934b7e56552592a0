import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leaseStoreContract } from '../testing/lease-store.contract';
import { SqliteLeaseStore } from './sqlite-lease-store';

leaseStoreContract('SQLite', async (now) => new SqliteLeaseStore(join(mkdtempSync(join(tmpdir(), 'leases-')), 'events.sqlite'), now));

describe('SqliteLeaseStore across processes', () => {
  it('two connections to one file (two processes) see one holder', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'leases-')), 'events.sqlite');
    const one = new SqliteLeaseStore(file);
    const two = new SqliteLeaseStore(file);
    try {
      expect(await one.acquire('relay', 'p1', 60_000)).toBe(true);
      expect(await two.acquire('relay', 'p2', 60_000)).toBe(false);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
