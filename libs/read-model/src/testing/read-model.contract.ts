import { randomUUID } from 'node:crypto';
import type { RunState } from '@app/domain';
import type { RunReadModel } from '../read-model.port';

const run = (over: Partial<RunState> = {}): RunState =>
  ({ id: randomUUID(), organization_id: 'o1', revision: 0, status: 'awaiting_upload', ...over }) as unknown as RunState;

/** Behaviour every read-model adapter must have. */
export function readModelContract(name: string, create: () => Promise<RunReadModel & { close(): Promise<void> }>): void {
  describe(`ReadModel contract: ${name}`, () => {
    let rm: RunReadModel & { close(): Promise<void> };
    beforeEach(async () => {
      rm = await create();
    });
    afterEach(async () => rm.close());

    it('stores a run with its checkpoint atomically and reads it back', async () => {
      const r = run();
      await rm.saveRun(r, { name: 'p', position: 3 });
      expect(await rm.getRun(r.id)).toEqual(r);
      expect(await rm.checkpoint('p')).toBe(3);
      await rm.saveRun({ ...r, revision: 1, status: 'processing' }, { name: 'p', position: 4 });
      expect(await rm.getRun(r.id)).toMatchObject({ revision: 1, status: 'processing' });
      expect(await rm.getRun(randomUUID())).toBeNull();
    });

    it('counts runs by status and stage, as last saved', async () => {
      const a = run({ stage: 'review' });
      await rm.saveRun(a, { name: 'p', position: 1 });
      await rm.saveRun(run({ stage: 'review' }), { name: 'p', position: 2 });
      await rm.saveRun({ ...a, revision: 1, status: 'completed', stage: 'final' }, { name: 'p', position: 3 });
      const counts = await rm.countRunsByStatusAndStage();
      expect(counts.sort((x, y) => x.status.localeCompare(y.status))).toEqual([
        { status: 'awaiting_upload', stage: 'review', count: 1 },
        { status: 'completed', stage: 'final', count: 1 },
      ]);
    });

    it("lists an organization's runs newest first, filtered and paged, never another organization's", async () => {
      const org = randomUUID();
      const at = (day: number, hour = 0) => new Date(Date.UTC(2026, 10, day, hour)).toISOString();
      const runs = [
        run({
          organization_id: org,
          created_at: at(1),
          stage: 'review',
          status: 'completed',
          review_state: 'active',
          review_expires_at: at(8),
          input_source: 'upload',
          filename: 'People.csv',
          metadata: null,
        }),
        run({
          organization_id: org,
          created_at: at(2),
          stage: 'final',
          status: 'completed',
          review_state: 'approved',
          input_source: 'raw',
          filename: null,
          metadata: { batch: 'Nov-42' },
        }),
        run({
          organization_id: org,
          created_at: at(3),
          stage: 'review',
          status: 'failed',
          input_source: 'upload',
          filename: 'orders.xlsx',
          metadata: null,
        }),
        run({
          organization_id: org,
          created_at: at(3, 5),
          stage: 'review',
          input_source: 'image',
          filename: 'scan.png',
          metadata: { note: 'people' },
        }),
      ];
      let position = 1;
      for (const r of runs) await rm.saveRun(r, { name: 'p', position: position++ });
      await rm.saveRun(run({ organization_id: randomUUID(), created_at: at(3, 6), stage: 'review', filename: 'People.csv' }), {
        name: 'p',
        position,
      });
      const ids = async (filter: Parameters<RunReadModel['listRuns']>[1], offset = 0, limit = 10) => {
        const page = await rm.listRuns(org, filter, offset, limit);
        return { ids: page.items.map((r) => runs.indexOf(runs.find((x) => x.id === r.id)!)), total: page.total };
      };
      expect(await ids({})).toEqual({ ids: [3, 2, 1, 0], total: 4 });
      expect(await ids({}, 1, 2)).toEqual({ ids: [2, 1], total: 4 });
      expect(await ids({ status: 'failed' })).toEqual({ ids: [2], total: 1 });
      // A run in review and a finished one are both `completed`; their review's state tells them apart.
      expect(await ids({ status: 'completed' })).toEqual({ ids: [1, 0], total: 2 });
      expect(await ids({ status: 'completed', review_state: 'active', now: at(7) })).toEqual({ ids: [0], total: 1 });
      expect(await ids({ review_state: 'expired', now: at(7) })).toEqual({ ids: [], total: 0 });
      expect(await ids({ review_state: 'approved' })).toEqual({ ids: [1], total: 1 });
      // Past its deadline, the active review is expired, as the API shows it; it is no longer in review.
      expect(await ids({ review_state: 'expired', now: at(9) })).toEqual({ ids: [0], total: 1 });
      expect(await ids({ review_state: 'active', now: at(9) })).toEqual({ ids: [], total: 0 });
      expect(await ids({ stage: 'final' })).toEqual({ ids: [1], total: 1 });
      expect(await ids({ input_source: 'upload' })).toEqual({ ids: [2, 0], total: 2 });
      expect(await ids({ created_after: at(2), created_before: at(3) })).toEqual({ ids: [2, 1], total: 2 });
      // Case-insensitive text in the file name or the metadata.
      expect(await ids({ q: 'PEOPLE' })).toEqual({ ids: [3, 0], total: 2 });
      expect(await ids({ q: 'nov-42' })).toEqual({ ids: [1], total: 1 });
      expect(await ids({ q: '%' })).toEqual({ ids: [], total: 0 });
    });

    it("searches the file name and the metadata's keys and values as text, not the metadata's JSON", async () => {
      const org = randomUUID();
      const at = (day: number) => new Date(Date.UTC(2026, 10, day)).toISOString();
      const runs = [
        run({
          filename: 'report.csv',
          metadata: { note: 'say "hi"', 'Batch Key': 7, nested: { list: [true, null, 'C:\\temp', 2.5] }, city: 'ÄRGERN' },
        }),
        run({ filename: 'quote".csv', metadata: null }),
        run({ filename: null, metadata: { a: 'b' } }),
        run({ filename: 'plain.csv', metadata: {} }),
        run({ filename: 'other.csv', metadata: { line: 'one\ntwo', nul: 'x\u0000y' } }),
      ].map((r, i) => ({ ...r, organization_id: org, created_at: at(i + 1) }));
      let position = 1;
      for (const r of runs) await rm.saveRun(r, { name: 'p', position: position++ });
      const ids = async (q: string) => {
        const page = await rm.listRuns(org, { q }, 0, 10);
        return { ids: page.items.map((r) => runs.findIndex((x) => x.id === r.id)), total: page.total };
      };
      // JSON's punctuation is no text of the run's: only a name or a value that holds it is found.
      expect(await ids('"')).toEqual({ ids: [1, 0], total: 2 });
      expect(await ids('{')).toEqual({ ids: [], total: 0 });
      expect(await ids(':')).toEqual({ ids: [0], total: 1 });
      expect(await ids('","')).toEqual({ ids: [], total: 0 });
      expect(await ids('"note"')).toEqual({ ids: [], total: 0 });
      expect(await ids('a":"b')).toEqual({ ids: [], total: 0 });
      // A value is found as it was written, not as its JSON escapes it.
      expect(await ids('say "hi')).toEqual({ ids: [0], total: 1 });
      expect(await ids('c:\\temp')).toEqual({ ids: [0], total: 1 });
      expect(await ids('one\ntwo')).toEqual({ ids: [4], total: 1 });
      expect(await ids('x\u0000y')).toEqual({ ids: [4], total: 1 });
      // Keys at any depth, case-insensitively (beyond ASCII too); numbers, booleans and null as their JSON text.
      expect(await ids('BATCH key')).toEqual({ ids: [0], total: 1 });
      expect(await ids('list')).toEqual({ ids: [0], total: 1 });
      expect(await ids('ärger')).toEqual({ ids: [0], total: 1 });
      expect(await ids('7')).toEqual({ ids: [0], total: 1 });
      expect(await ids('2.5')).toEqual({ ids: [0], total: 1 });
      expect(await ids('true')).toEqual({ ids: [0], total: 1 });
      expect(await ids('null')).toEqual({ ids: [0], total: 1 });
      expect(await ids('B')).toEqual({ ids: [2, 0], total: 2 });
      // One name or value holds the text: no match across two of them.
      expect(await ids('ab')).toEqual({ ids: [], total: 0 });
      expect(await ids('note say')).toEqual({ ids: [], total: 0 });
      expect(await ids('PLAIN')).toEqual({ ids: [3], total: 1 });
    });

    it("counts an organization's runs per day and outcome since a time, with the rows they processed", async () => {
      const org = randomUUID();
      const at = (day: number) => new Date(Date.UTC(2026, 10, day, 12)).toISOString();
      const save = (over: Partial<RunState>, position: number) =>
        rm.saveRun(run({ organization_id: org, ...over }), { name: 'p', position });
      await save({ created_at: at(1), status: 'completed', stage: 'final', processed_rows: 100 }, 1);
      await save({ created_at: at(5), status: 'completed', stage: 'final', processed_rows: 10 }, 2);
      await save({ created_at: at(5), status: 'failed', stage: 'review', processed_rows: 5 }, 3);
      await save({ created_at: at(5), status: 'completed', stage: 'review', review_state: 'canceled', processed_rows: 1 }, 4);
      await save({ created_at: at(6), status: 'processing', stage: 'review', processed_rows: 0 }, 5);
      await rm.saveRun(run({ organization_id: randomUUID(), created_at: at(5), status: 'failed', processed_rows: 7 }), {
        name: 'p',
        position: 6,
      });
      const usage = await rm.runUsage(org, at(2));
      expect(usage.days).toEqual([
        { date: '2026-11-05', outcome: 'canceled', count: 1 },
        { date: '2026-11-05', outcome: 'failed', count: 1 },
        { date: '2026-11-05', outcome: 'finished', count: 1 },
        { date: '2026-11-06', outcome: 'other', count: 1 },
      ]);
      expect(usage.rows_processed).toBe(16);
    });

    it('keeps a document that is already at a higher revision (two projectors racing), and still moves the checkpoint', async () => {
      const newer = run({ revision: 5, status: 'processing' });
      await rm.saveRun(newer, { name: 'runs', position: 50 });
      await rm.saveRun({ ...newer, revision: 3, status: 'queued' }, { name: 'runs', position: 60 });
      expect(await rm.getRun(newer.id)).toEqual(newer);
      expect(await rm.checkpoint('runs')).toBe(60);
      await rm.saveRun({ ...newer, status: 'completed' }, { name: 'runs', position: 61 });
      expect((await rm.getRun(newer.id))?.status).toBe('completed'); // the same revision is written again (a rebuild's repair)
    });

    it('reads a run for display as last written: each revision, a rewrite of the same revision, and after a reset; frozen', async () => {
      const r = run({ revision: 1, status: 'queued' });
      expect(await rm.getRunView(r.id)).toBeNull();
      await rm.saveRun(r, { name: 'runs', position: 1 });
      expect(await rm.getRunView(r.id)).toEqual(r);
      expect(await rm.getRunView(r.id)).toEqual(r); // read again, unchanged
      await rm.saveRun({ ...r, revision: 2, status: 'processing' }, { name: 'runs', position: 2 });
      expect(await rm.getRunView(r.id)).toMatchObject({ revision: 2, status: 'processing' });
      await rm.saveRun({ ...r, revision: 2, status: 'failed' }, { name: 'runs', position: 3 }); // a rebuild's repair
      const repaired = await rm.getRunView(r.id);
      expect(repaired).toMatchObject({ revision: 2, status: 'failed' });
      expect(Object.isFrozen(repaired)).toBe(true);
      await rm.reset('runs');
      expect(await rm.getRunView(r.id)).toBeNull();
      await rm.saveRun({ ...r, revision: 2, status: 'completed' }, { name: 'runs', position: 4 });
      expect(await rm.getRunView(r.id)).toMatchObject({ revision: 2, status: 'completed' });
    });

    it('never moves a checkpoint backwards (a rebuild beside the live projector)', async () => {
      await rm.saveCheckpoint('p', 9);
      await rm.saveRun(run(), { name: 'p', position: 3 });
      await rm.saveCheckpoint('p', 5);
      expect(await rm.checkpoint('p')).toBe(9);
    });

    it('deletes one run document, for display too, and no other; a checkpoint stays', async () => {
      const gone = run({ id: 'gone' });
      const kept = run({ id: 'kept' });
      await rm.saveRun(gone, { name: 'p', position: 4 });
      await rm.saveRun(kept, { name: 'p', position: 5 });
      expect(await rm.getRunView(gone.id)).toEqual(gone);
      await rm.deleteRun(gone.id);
      await rm.deleteRun('never-there');
      expect([await rm.getRun(gone.id), await rm.getRunView(gone.id)]).toEqual([null, null]);
      expect(await rm.getRun(kept.id)).toEqual(kept);
      expect(await rm.checkpoint('p')).toBe(5);
    });

    it('reset clears runs and the named checkpoint with its lanes, nothing else', async () => {
      const r = run();
      await rm.saveRun(r, { name: 'p', position: 9 });
      await rm.saveCheckpoint('p@3', 7);
      await rm.saveCheckpoint('px', 5);
      await rm.reset('p');
      expect(await rm.getRun(r.id)).toBeNull();
      expect(await rm.checkpoint('p')).toBe(0);
      expect(await rm.checkpoint('p@3')).toBe(0);
      expect(await rm.checkpoint('px')).toBe(5);
    });

    it('lists runs whose webhook attempt is due, earliest first', async () => {
      const base = run();
      await rm.saveRun({ ...base, id: 'w1', webhook_due_at: '2026-01-01T00:00:05.000Z' }, { name: 'runs', position: 1 });
      await rm.saveRun({ ...base, id: 'w2', webhook_due_at: '2026-01-01T00:00:01.000Z' }, { name: 'runs', position: 2 });
      await rm.saveRun({ ...base, id: 'w3', webhook_due_at: null }, { name: 'runs', position: 3 });
      expect(await rm.listDueWebhooks('2026-01-01T00:00:10.000Z', 10)).toEqual(['w2', 'w1']);
      expect(await rm.listDueWebhooks('2026-01-01T00:00:02.000Z', 10)).toEqual(['w2']);
      await rm.saveRun({ ...base, id: 'w2', webhook_due_at: null }, { name: 'runs', position: 4 });
      expect(await rm.listDueWebhooks('2026-01-01T00:00:10.000Z', 10)).toEqual(['w1']);
    });

    it('lists runs waiting for an upload whose window has not ended, until the upload', async () => {
      const waiting = { ...run(), status: 'awaiting_upload', source_uploaded: false };
      await rm.saveRun({ ...waiting, id: 'u1', upload_expires_at: '2026-01-01T01:00:00.000Z' } as never, { name: 'runs', position: 1 });
      await rm.saveRun({ ...waiting, id: 'u2', upload_expires_at: '2026-01-01T00:30:00.000Z' } as never, { name: 'runs', position: 2 });
      await rm.saveRun({ ...waiting, id: 'u3', upload_expires_at: '2025-12-31T00:00:00.000Z' } as never, { name: 'runs', position: 3 });
      expect(await rm.listAwaitingUpload('2026-01-01T00:00:00.000Z', 10)).toEqual(['u2', 'u1']);
      await rm.saveRun(
        { ...waiting, id: 'u2', status: 'processing', source_uploaded: true, upload_expires_at: '2026-01-01T00:30:00.000Z' } as never,
        { name: 'runs', position: 4 },
      );
      expect(await rm.listAwaitingUpload('2026-01-01T00:00:00.000Z', 10)).toEqual(['u1']);
    });

    it('lists runs whose upload window ended without an upload, until they move on', async () => {
      const waiting = { ...run(), status: 'awaiting_upload', source_uploaded: false };
      await rm.saveRun({ ...waiting, id: 'o1', upload_expires_at: '2026-01-01T01:00:00.000Z' } as never, { name: 'runs', position: 1 });
      await rm.saveRun({ ...waiting, id: 'o2', upload_expires_at: '2026-01-01T00:30:00.000Z' } as never, { name: 'runs', position: 2 });
      await rm.saveRun({ ...waiting, id: 'o3', upload_expires_at: '2026-01-01T02:00:00.000Z' } as never, { name: 'runs', position: 3 });
      expect(await rm.listUploadsOverdue('2026-01-01T01:00:00.000Z', 10)).toEqual(['o2', 'o1']);
      expect(await rm.listUploadsOverdue('2026-01-01T01:00:00.000Z', 1)).toEqual(['o2']);
      await rm.saveRun({ ...waiting, id: 'o2', status: 'failed', upload_expires_at: '2026-01-01T00:30:00.000Z' } as never, {
        name: 'runs',
        position: 4,
      });
      expect(await rm.listUploadsOverdue('2026-01-01T01:00:00.000Z', 10)).toEqual(['o1']);
    });

    it('lists runs whose files are due for deletion: outputs past retention, closed runs past the cutoff, not purged ones', async () => {
      const base = { ...run(), status: 'completed', stage: 'review', review_state: null, files_purged_at: null };
      const output = { ...base, stage: 'final', file_retention_until: '2026-01-10T00:00:00.000Z' };
      await rm.saveRun({ ...output, id: 'p1' } as never, { name: 'runs', position: 1 });
      await rm.saveRun({ ...base, id: 'p2', review_state: 'canceled', review_canceled_at: '2026-01-01T00:00:00.000Z' } as never, {
        name: 'runs',
        position: 2,
      });
      await rm.saveRun({ ...base, id: 'p3', status: 'failed', failed_at: '2026-01-02T00:00:00.000Z' } as never, {
        name: 'runs',
        position: 3,
      });
      await rm.saveRun({ ...base, id: 'p4', review_state: 'active', review_expires_at: '2026-01-03T00:00:00.000Z' } as never, {
        name: 'runs',
        position: 4,
      });
      await rm.saveRun({ ...base, id: 'p5', status: 'processing', stage: 'final', review_state: 'approved' } as never, {
        name: 'runs',
        position: 5,
      });
      // Outputs by their own deadline, closed runs by the cutoff (now minus the retention).
      expect(await rm.listFilesToPurge('2026-01-10T00:00:00.000Z', '2026-01-02T12:00:00.000Z', 10)).toEqual(['p2', 'p3', 'p1']);
      expect(await rm.listFilesToPurge('2026-01-09T00:00:00.000Z', '2026-01-05T00:00:00.000Z', 10)).toEqual(['p2', 'p3', 'p4']);
      expect(await rm.listFilesToPurge('2026-01-09T00:00:00.000Z', '2026-01-05T00:00:00.000Z', 2)).toEqual(['p2', 'p3']);
      await rm.saveRun({ ...output, id: 'p1', files_purged_at: '2026-01-11T00:00:00.000Z' } as never, { name: 'runs', position: 6 });
      await rm.saveRun(
        { ...base, id: 'p2', review_state: 'canceled', review_canceled_at: '2026-01-01T00:00:00.000Z', files_purged_at: 'x' } as never,
        { name: 'runs', position: 7 },
      );
      expect(await rm.listFilesToPurge('2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', 10)).toEqual(['p3', 'p4']);
    });
  });
}
