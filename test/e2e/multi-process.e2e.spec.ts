import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStreamId } from '@app/contracts';
import { SqliteEventStore } from '@app/event-store';
import { ADMIN_TOKEN, call, freePort, httpFetch, reviewApi, untilAnswers, upload } from '../support/service-harness';
import { spawnBuiltApp } from '../support/built-service';

/**
 * Each app as its own process (the built `main.ts` of gateway, projector, ingestion,
 * mapping, output and notifier) on the embedded adapters, sharing DATA_DIR: the SQLite
 * event store is the only channel between them, each app polling it from its own
 * checkpoints. A full run goes across the processes, and the ingestion app is killed
 * (SIGKILL) in the middle of reading the file and started again.
 */
const ROOT = join(__dirname, '..', '..');
const APPS = ['projector', 'ingestion', 'mapping', 'output', 'notifier', 'gateway'] as const;
type AppName = (typeof APPS)[number];
const ROWS = 300_000;

describe('apps as separate processes on the embedded adapters', () => {
  let port: number;
  let dataDir: string;
  const children = new Map<AppName, ChildProcess>();
  const base = () => `http://127.0.0.1:${port}`;

  function start(app: AppName): void {
    children.set(app, spawnBuiltApp(app, { port, dataDir, publicBaseUrl: base(), env: { RATE_LIMIT_PER_MINUTE: '1000000' } }));
  }

  async function kill(app: AppName): Promise<void> {
    const child = children.get(app);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    children.delete(app);
  }

  async function waitUntil(apiKey: string, id: string, until: (r: any) => boolean, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = (await call(`${base()}/v1/transformations/${id}`, { token: apiKey })).body;
      if (until(r)) return r;
      if (Date.now() > deadline) throw new Error(`timed out; last ${JSON.stringify(r).slice(0, 400)}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  beforeAll(async () => {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-multi-'));
    // The gateway creates the shared files first; the workers then open them.
    start('gateway');
    await untilAnswers(`${base()}/openapi.json`, () => 'the gateway', 10_000);
    for (const app of APPS) if (app !== 'gateway') start(app);
  }, 120_000);

  afterAll(async () => {
    for (const app of [...children.keys()]) await kill(app);
  });

  it('runs a file across the processes, surviving a SIGKILL of the ingestion app mid-file', async () => {
    const org = await call(`${base()}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Multi' } });
    const apiKey = org.body.api_key;
    const schema = await call(`${base()}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: {
        name: 'People',
        fields: {
          email: { description: 'Email', data_type: 'email', is_required: true },
          age: { description: 'Age', data_type: 'integer', is_required: false },
        },
      },
    });
    const created = await call(`${base()}/v1/transformations/file`, {
      token: apiKey,
      body: { schema_id: schema.body.data.id, filename: 'people.csv' },
    });
    expect(created.status).toBe(201);
    const lines = ['E-mail,Age'];
    for (let i = 0; i < ROWS; i++) lines.push(`user${i}@example.com,${20 + (i % 50)}`);
    expect((await upload(created.body, lines.join('\n') + '\n')).status).toBe(200);
    const id = created.body.id;

    // The ingestion process is killed while the run is in its hands; its replacement goes on from its checkpoint.
    await waitUntil(apiKey, id, (r) => r.status === 'processing', 30_000);
    await kill('ingestion');
    // Killed before it prepared the review (the count may already be recorded on a fast machine).
    expect((await call(`${base()}/v1/transformations/${id}`, { token: apiKey })).body.review_state).toBeNull();
    start('ingestion');

    const ready = await waitUntil(apiKey, id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({ total_rows: ROWS, processed_rows: ROWS, status: 'completed' });
    expect(ready.mapping_rule).toEqual({ email: 'E-mail', age: 'Age' });
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    const done = await waitUntil(apiKey, id, (r) => r.stage === 'final' && r.status === 'completed');
    const output = (await (await httpFetch(done.download_url)).json()) as unknown[];
    expect(output).toHaveLength(ROWS);
    expect(output[ROWS - 1]).toEqual({ email: `user${ROWS - 1}@example.com`, age: 20 + ((ROWS - 1) % 50) });

    const store = new SqliteEventStore(join(dataDir, 'events.sqlite'), 1000);
    try {
      const types = (await store.readStream(runStreamId(id))).map((e) => e.type);
      for (const once of [
        'RunCreated',
        'SourceUploaded',
        'SourceParsed',
        'ReviewPrepared',
        'ReviewApproved',
        'OutputStarted',
        'OutputProduced',
      ]) {
        expect({ once, count: types.filter((t) => t === once).length }).toEqual({ once, count: 1 });
      }
    } finally {
      await store.close();
    }
  }, 180_000);
});
