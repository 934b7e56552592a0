import { join } from 'node:path';
import { SqliteEventStore } from '@app/event-store';
import { RUN_PROJECTION } from '@app/read-model';
import { SqliteReadModel } from '@app/read-model';
import { rebuildReadModel, type RebuildProgress } from '../../apps/cli/src/operator/rebuild-read-model';
import { formatHistory, runHistory } from '../../apps/cli/src/operator/run-history';
import { reviewApi, setupOrganization, startService, upload, waitForRun, call } from '../support/service-harness';

/**
 * Operator tools on the stores a real service wrote: one run's history, and rebuilding
 * run documents from the event store (all or one, dry run, idempotent).
 */
describe('operator tools: run history and read-model rebuild', () => {
  let dataDir: string;
  const ids: string[] = [];
  let store: SqliteEventStore;
  let readModel: SqliteReadModel;

  beforeAll(async () => {
    const svc = await startService();
    dataDir = svc.config.dataDir;
    const org = await setupOrganization(svc);
    for (const name of ['a.csv', 'b.csv']) {
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: name },
      });
      await upload(created.body, 'E-mail,Age\nada@example.com,36\n');
      const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
      ids.push(created.body.id);
      if (name === 'a.csv') {
        await reviewApi(ready.review_url).approve();
        await waitForRun(svc, org.apiKey, created.body.id, (r) => r.stage === 'final' && r.status === 'completed');
      }
    }
    await svc.stop();
    store = new SqliteEventStore(join(dataDir, 'events.sqlite'), 1000);
    readModel = new SqliteReadModel(join(dataDir, 'read-model.sqlite'));
  });
  afterAll(async () => {
    await store?.close();
  });

  const snapshot = async () => Promise.all(ids.map((id) => readModel.getRun(id)));

  it("shows one run's events in order", async () => {
    const events = await runHistory(store, ids[0]);
    expect(events.map((e) => e.revision)).toEqual(events.map((_, i) => i));
    const lines = formatHistory(events);
    const types = lines.map((l) => l.split(/\s+/)[4]);
    const steps = ['RunCreated', 'SourceUploaded', 'SourceParsed', 'ReviewPrepared', 'ReviewApproved', 'OutputProduced'];
    expect(types.filter((t) => steps.includes(t))).toEqual(steps);
    expect(lines[0]).toMatch(/^#0 {2}pos \d+ {2}\d{4}-\d\d-\d\dT/);
    expect(await runHistory(store, 'no-such-run')).toEqual([]);
  });

  it('finds the live projection equal to the folded streams (nothing to change)', async () => {
    const report = await rebuildReadModel(store, readModel, { dryRun: true });
    expect(report).toEqual({ runs: 2, changed: [], newerInReadModel: [], malformed: [], removed: [] });
  });

  it('repairs a damaged document; a dry run only reports; a second run changes nothing', async () => {
    const before = await snapshot();
    const checkpoint = { name: RUN_PROJECTION, position: await readModel.checkpoint(RUN_PROJECTION) };
    await readModel.saveRun({ ...before[1]!, status: 'failed', total_rows: 999 }, checkpoint);

    const dry = await rebuildReadModel(store, readModel, { dryRun: true });
    expect(dry.changed).toEqual([ids[1]]);
    expect((await readModel.getRun(ids[1]))!.total_rows).toBe(999);

    const ticks: string[] = [];
    const progress: RebuildProgress = {
      start: (total, label) => ticks.push(`${label}:${total}`),
      advance: () => undefined,
      stop: () => undefined,
    };
    expect((await rebuildReadModel(store, readModel, { progress })).changed).toEqual([ids[1]]);
    expect(await snapshot()).toEqual(before);
    expect(ticks[0]).toMatch(/^scanning events:\d+$/);
    expect(ticks[1]).toBe('rebuilding runs:2');
    expect(await readModel.checkpoint(RUN_PROJECTION)).toBe(checkpoint.position);

    expect((await rebuildReadModel(store, readModel)).changed).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('rebuilds an emptied read model, and one run alone', async () => {
    const before = await snapshot();
    await readModel.reset(RUN_PROJECTION);
    expect(await readModel.getRun(ids[0])).toBeNull();
    const one = await rebuildReadModel(store, readModel, { runId: ids[0] });
    expect(one).toEqual({ runs: 1, changed: [ids[0]], newerInReadModel: [], malformed: [], removed: [] });
    expect(await readModel.getRun(ids[1])).toBeNull();
    await rebuildReadModel(store, readModel);
    expect(await snapshot()).toEqual(before);
  });

  it('never replaces a document with an older fold', async () => {
    const current = (await readModel.getRun(ids[0]))!;
    await readModel.saveRun(
      { ...current, revision: current.revision + 5 },
      { name: RUN_PROJECTION, position: await readModel.checkpoint(RUN_PROJECTION) },
    );
    const report = await rebuildReadModel(store, readModel);
    expect(report.newerInReadModel).toEqual([ids[0]]);
    expect((await readModel.getRun(ids[0]))!.revision).toBe(current.revision + 5);
  });
});
