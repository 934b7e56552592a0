import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '@app/config';
import { SqliteLeaseStore, uploadLease } from '@app/leases';
import type { RunReadModel } from '@app/read-model';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { RunSweeper } from './run-sweeper';

const NOW = new Date('2026-11-30T12:00:00.000Z');

/** A query bus whose every run waits for its upload, whose window closed at `uploadExpiresAt`. */
const runsAwaitingUpload = (uploadExpiresAt: string) =>
  ({
    execute: async (q: LoadRunQuery) => ({
      state: {
        id: q.runId,
        organization_id: 'org',
        input_source: 'upload',
        status: 'awaiting_upload',
        source_uploaded: false,
        source_key: `runs/${q.runId}/source`,
        upload_expires_at: uploadExpiresAt,
      },
    }),
  }) as unknown as QueryBus;

describe('RunSweeper: overdue uploads', () => {
  it('reaches past runs whose upload is still arriving (their lease held), however many head the list, and only runs overdue by the margin', async () => {
    // 250 runs past their window, the oldest 230 of them with an upload under way elsewhere.
    const overdue = Array.from({ length: 250 }, (_, i) => `run-${String(i).padStart(3, '0')}`);
    const listedAt: string[] = [];
    const readModel = {
      listUploadsOverdue: async (at: string, limit: number) => (listedAt.push(at), overdue.slice(0, limit)),
      listFilesToPurge: async () => [],
    } as unknown as RunReadModel;
    const leases = new SqliteLeaseStore(join(mkdtempSync(join(tmpdir(), 'sweeper-')), 'events.sqlite'));
    for (const id of overdue.slice(0, 230)) await leases.acquire(uploadLease(id), 'gateway-2/upload', 60_000);
    const queryBus = runsAwaitingUpload('2026-11-30T11:00:00.000Z');
    const expired: string[] = [];
    const commandBus = {
      execute: async (c: ApplyRunCommand) => {
        expired.push(c.runId);
        overdue.splice(overdue.indexOf(c.runId), 1); // failed: it leaves the list
      },
    } as unknown as CommandBus;
    const sweeper = new RunSweeper(
      { sweepIntervalMs: 1_000_000, outputRetentionSeconds: 3600, blobStore: { kind: 'local' } } as AppConfig,
      readModel,
      { stat: async () => null } as never,
      leases,
      commandBus,
      queryBus,
    );
    try {
      await sweeper.tick(NOW);
      expect(expired).toEqual(Array.from({ length: 20 }, (_, i) => `run-${230 + i}`));
      // Listed as overdue 5 s before now: a PUT checked just before the window closed takes the lease first.
      expect(new Set(listedAt)).toEqual(new Set(['2026-11-30T11:59:55.000Z']));
      // The leases it took to decide were given back; the uploads' own are untouched.
      expect((await leases.list('upload:', 1000)).map((l) => l.holder)).toEqual(Array(230).fill('gateway-2/upload'));
    } finally {
      await leases.close();
    }
  });

  it('with S3, where an upload cannot be seen to begin, expires a run only 15 min after its window, and leaves one whose object landed while the watcher still looks', async () => {
    const listedAt: string[] = [];
    const readModel = {
      listUploadsOverdue: async (at: string) => (listedAt.push(at), ['landed', 'nothing']),
      listFilesToPurge: async () => [],
    } as unknown as RunReadModel;
    const leases = new SqliteLeaseStore(join(mkdtempSync(join(tmpdir(), 'sweeper-')), 'events.sqlite'));
    const queryBus = runsAwaitingUpload('2026-11-30T11:44:00.000Z'); // 16 min before NOW
    const expired: string[] = [];
    const commandBus = { execute: async (c: ApplyRunCommand) => void expired.push(c.runId) } as unknown as CommandBus;
    const sweeper = new RunSweeper(
      { sweepIntervalMs: 1_000_000, outputRetentionSeconds: 3600, blobStore: { kind: 's3' } } as AppConfig,
      readModel,
      { stat: async (key: string) => (key === 'runs/landed/source' ? { size: 10 } : null) } as never,
      leases,
      commandBus,
      queryBus,
    );
    try {
      await sweeper.tick(NOW);
      expect(new Set(listedAt)).toEqual(new Set(['2026-11-30T11:45:00.000Z']));
      // The object that landed is the bucket watcher's to record (it looks 20 min past the window).
      expect(expired).toEqual(['nothing']);
    } finally {
      await leases.close();
    }
  });

  it('stops a sweep after 10 failures in a row (its store down), and says so once', async () => {
    const overdue = Array.from({ length: 50 }, (_, i) => `run-${i}`);
    const readModel = {
      listUploadsOverdue: async (_at: string, limit: number) => overdue.slice(0, limit),
      listFilesToPurge: async () => [],
    } as unknown as RunReadModel;
    const leases = new SqliteLeaseStore(join(mkdtempSync(join(tmpdir(), 'sweeper-')), 'events.sqlite'));
    let loads = 0;
    const queryBus = {
      execute: async () => {
        loads++;
        throw new Error('the event store is unreachable');
      },
    } as unknown as QueryBus;
    const sweeper = new RunSweeper(
      { sweepIntervalMs: 1_000_000, outputRetentionSeconds: 3600, blobStore: { kind: 'local' } } as AppConfig,
      readModel,
      { stat: async () => null } as never,
      leases,
      { execute: async () => undefined } as unknown as CommandBus,
      queryBus,
    );
    const errors = jest
      .spyOn((sweeper as unknown as { logger: { error(m: string): void } }).logger, 'error')
      .mockImplementation(() => undefined);
    try {
      await sweeper.tick(NOW);
      expect(loads).toBe(10);
      expect(errors.mock.calls.at(-1)![0]).toBe('overdue uploads: 10 failures in a row; the rest waits for the next sweep');
      // The leases taken to decide were all given back.
      expect(await leases.list('upload:', 100)).toEqual([]);
    } finally {
      await leases.close();
    }
  });
});
