import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@app/event-store';
import { call, httpFetch, reviewApi, setupOrganization, startService, upload, waitForRun } from '../support/service-harness';

describe('restart', () => {
  it('keeps organizations, runs and files; a run finishes after restarts with no event lost or doubled', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'restart-'));
    let svc = await startService({}, dataDir);
    const env = { PORT: String(svc.config.port) };
    const org = await setupOrganization(svc);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'a.csv' },
    });
    await upload(created.body, 'email,age\na@b.io,1\nc@d.io,2\n');
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');

    // Stop between upload and approval.
    await svc.stop();
    svc = await startService(env, dataDir);
    const afterRestart = await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey });
    expect(afterRestart.body).toMatchObject({ review_state: 'active', total_rows: 2, review_url: ready.review_url });
    // The signing secret survived too: the old review link still works.
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);

    // Stop right after approval, before or while the output is produced.
    await svc.stop();
    svc = await startService(env, dataDir);
    const done = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    expect(await (await httpFetch(done.download_url)).json()).toEqual([
      { email: 'a@b.io', first_name: null, age: 1, born: null },
      { email: 'c@d.io', first_name: null, age: 2, born: null },
    ]);
    await svc.stop();

    // Each fact happened exactly once.
    const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
    const types = (await store.readStream(`run-${created.body.id}`)).map((e) => e.type);
    await store.close();
    for (const once of [
      'RunCreated',
      'SourceUploaded',
      'SourceParsed',
      'ReviewPrepared',
      'ReviewApproved',
      'OutputStarted',
      'OutputProduced',
    ]) {
      expect(types.filter((t) => t === once)).toHaveLength(1);
    }
  });
});
