import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '@app/config';
import { SqliteLeaseStore, type LeaseStore } from '@app/leases';
import type { RunReadModel } from '@app/read-model';
import { BucketUploadWatcher } from './bucket-upload.watcher';

const leaseFile = () => join(mkdtempSync(join(tmpdir(), 'watcher-')), 'events.sqlite');

/** A replica's watcher (named by INSTANCE_ID, as replicas on one host are) whose checks are only recorded, over a read model that lists `waiting`. */
function watcherOver(instance: string, waiting: string[], leases: LeaseStore, checked: string[]) {
  process.env.INSTANCE_ID = instance;
  const readModel = { listAwaitingUpload: async (_since: string, limit: number) => waiting.slice(0, limit) } as unknown as RunReadModel;
  const watcher = new BucketUploadWatcher(
    { uploadPollMs: 2000 } as AppConfig,
    readModel,
    null as never,
    leases,
    null as never,
    null as never,
  );
  jest
    .spyOn(watcher as unknown as { check(id: string): Promise<void> }, 'check')
    .mockImplementation(async (id: string) => void checked.push(id));
  delete process.env.INSTANCE_ID;
  return watcher;
}

describe('BucketUploadWatcher', () => {
  it('looks at every run waiting for its upload in one pass, past the first page (oldest window first)', async () => {
    const waiting = Array.from({ length: 250 }, (_, i) => `run-${String(i).padStart(3, '0')}`);
    const limits: number[] = [];
    const readModel = {
      listAwaitingUpload: async (_since: string, limit: number) => (limits.push(limit), waiting.slice(0, limit)),
    } as unknown as RunReadModel;
    const watcher = new BucketUploadWatcher(
      { uploadPollMs: 1_000_000 } as AppConfig,
      readModel,
      null as never,
      new SqliteLeaseStore(leaseFile()),
      null as never,
      null as never,
    );
    const checked: string[] = [];
    jest.spyOn(watcher as unknown as { check(id: string): Promise<void> }, 'check').mockImplementation(async (id: string) => {
      checked.push(id);
      if (id === 'run-000') waiting.shift(); // its upload was recorded: it leaves the list before the next page
    });
    await watcher.tick();
    expect(checked).toEqual(['run-000', ...waiting]);
    expect(new Set(checked).size).toBe(250);
    expect(limits).toEqual([100, 200, 300]);
  });

  it('looks from one replica at a time; another takes over once the lease of the one that stopped looking ran out', async () => {
    let clock = 1_000_000;
    const file = leaseFile();
    const checked: string[] = [];
    const one = watcherOver('one', ['run-1'], new SqliteLeaseStore(file, () => clock), checked);
    const two = watcherOver('two', ['run-1'], new SqliteLeaseStore(file, () => clock), checked);
    await one.tick();
    await two.tick();
    await one.tick();
    expect(checked).toEqual(['run-1', 'run-1']); // the first replica's two looks; the second stood by
    clock += 6_000 + 1; // the first stopped looking: its lease (3 polls, at least 10 s) ran out
    await two.tick();
    expect(checked).toEqual(['run-1', 'run-1']);
    clock += 4_000;
    await two.tick();
    expect(checked).toEqual(['run-1', 'run-1', 'run-1']);
  });
});
