import type { AppConfig } from '@app/config';
import type { RunReadModel } from '@app/read-model';
import { BucketUploadWatcher } from './bucket-upload.watcher';

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
});
