import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStreamId } from '@app/contracts';
import { SqliteEventStore } from '@app/event-store';
import { ADMIN_TOKEN, call, freePort, httpFetch, reviewApi, upload } from '../support/service-harness';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import { WebhookReceiver } from '../support/webhook-receiver';
import { spawnBuiltApp } from '../support/built-service';

/**
 * Crash safety: the service runs as its own process (the built `npm start` entry point)
 * and is killed with SIGKILL in the middle of ingestion, of review preparation (while the
 * AI provider is being asked), of writing the output and of a webhook delivery, then
 * started again on the same data. The run must finish exactly once: every
 * row counted, no event duplicated, no partial output ever downloadable.
 */

const ROOT = join(__dirname, '..', '..');
const ROWS = 1_000_000;
const csv = (): Buffer => {
  const lines = ['E-mail,First name,Age'];
  for (let i = 0; i < ROWS; i++) lines.push(`user${i}@example.com,Name ${i},${20 + (i % 50)}`);
  return Buffer.from(lines.join('\n') + '\n');
};

describe('crash safety (SIGKILL)', () => {
  let port: number;
  let dataDir: string;
  let child: ChildProcess | null = null;
  const base = () => `http://127.0.0.1:${port}`;

  async function start(): Promise<void> {
    // With the heap cap `npm start` uses, so a million rows must also fit in it.
    child = spawnBuiltApp('standalone', {
      port,
      dataDir,
      publicBaseUrl: base(),
      env: {
        WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
        AI_ALLOWED_ADDRESSES: '127.0.0.1',
        RATE_LIMIT_PER_MINUTE: '1000000',
        WEBHOOK_POLL_MS: '25',
        WEBHOOK_TIMEOUT_MS: '20000',
        AI_TIMEOUT_MS: '60000',
      },
    });
    // Up to 30 s: a restart on a loaded 2-core machine (a build or another suite beside it) took over 10.
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`${base()}/openapi.json`)).ok) return;
      } catch {
        /* not up yet */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the service did not start');
  }

  async function kill(): Promise<void> {
    const c = child!;
    child = null;
    // A child that already ended (one that failed to start) has no exit left to wait for.
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  }

  async function runState(apiKey: string, id: string) {
    return (await call(`${base()}/v1/transformations/${id}`, { token: apiKey })).body;
  }

  async function waitUntil(apiKey: string, id: string, until: (r: any) => boolean, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await runState(apiKey, id);
      if (until(r)) return r;
      if (Date.now() > deadline) throw new Error(`timed out; last ${JSON.stringify(r).slice(0, 400)}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  async function organization() {
    const org = await call(`${base()}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Crash' } });
    const schema = await call(`${base()}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: {
        name: 'People',
        fields: {
          email: { description: 'Email', data_type: 'email', is_required: true },
          first_name: { description: 'First name', data_type: 'string', is_required: false },
          age: { description: 'Age', data_type: 'integer', is_required: false },
        },
      },
    });
    return { orgId: org.body.id as string, apiKey: org.body.api_key as string, schemaId: schema.body.data.id as string };
  }

  /** The types of a run's events, read from the store file the service writes. */
  async function eventTypes(id: string): Promise<string[]> {
    const store = new SqliteEventStore(join(dataDir, 'events.sqlite'), 1000);
    try {
      return (await store.readStream(runStreamId(id))).map((e) => e.type);
    } finally {
      await store.close();
    }
  }

  const expectOnce = (types: string[], once: string[]) => {
    for (const type of once) expect({ type, count: types.filter((t) => t === type).length }).toEqual({ type, count: 1 });
  };

  beforeAll(async () => {
    // The real entry point, built as `npm start` builds it.
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    await start();
  }, 120_000);

  afterAll(async () => {
    if (child) await kill();
  });

  it('finishes a run exactly once after being killed mid-ingestion and mid-output', async () => {
    const { apiKey, schemaId } = await organization();
    const created = await call(`${base()}/v1/transformations/file`, { token: apiKey, body: { schema_id: schemaId, filename: 'big.csv' } });
    expect((await upload(created.body, csv())).status).toBe(200);
    const id = created.body.id;

    // Killed while ingestion runs: the upload outruns the scan that follows it here, so the stored file is read
    // after the 200 (about 0.3 s on a fast machine; polled every 20 ms). Not waiting for `processing` alone: were
    // the review ready first, that would time out rather than say what happened.
    await waitUntil(apiKey, id, (r) => r.status === 'processing' || r.review_state === 'active', 30_000);
    await kill();
    expect(await eventTypes(id)).not.toContain('ReviewPrepared');
    await start();
    const ready = await waitUntil(apiKey, id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({ total_rows: ROWS, processed_rows: ROWS, status: 'completed', stage: 'review' });

    // Killed while the output is being written: nothing downloadable until it is whole.
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    // Killed once the output step runs: its progress is recorded once a second, and a fast machine writes
    // the million rows in about that long, so waiting for processed_rows > 0 could see it done instead.
    const writing = await waitUntil(apiKey, id, (r) => r.stage === 'final' && r.status === 'processing', 30_000);
    expect(writing.download_url).toBeNull();
    await kill();
    await start();
    const done = await waitUntil(apiKey, id, (r) => r.stage === 'final' && r.status === 'completed');
    expect(done).toMatchObject({ processed_rows: ROWS, error: null });

    const output = (await (await httpFetch(done.download_url)).json()) as unknown[];
    expect(output).toHaveLength(ROWS);
    expect(output[ROWS - 1]).toEqual({ email: `user${ROWS - 1}@example.com`, first_name: `Name ${ROWS - 1}`, age: 20 + ((ROWS - 1) % 50) });

    // Exactly once: each step's event appears once in the run's stream.
    expectOnce(await eventTypes(id), [
      'RunCreated',
      'SourceUploaded',
      'SourceParsed',
      'ReviewPrepared',
      'ReviewApproved',
      'OutputStarted',
      'OutputProduced',
    ]);
  }, 180_000);

  it('prepares the review exactly once, taking one unit of quota, after being killed while the AI provider is asked', async () => {
    const vendor = new FakeVendor();
    await vendor.start();
    try {
      const { orgId, apiKey, schemaId } = await organization();
      const admin = (path: string, body: unknown, method = 'POST') =>
        call(`${base()}/admin/v1/organizations/${orgId}${path}`, { token: ADMIN_TOKEN, body, method });
      const provider = await admin('/providers', {
        name: 'p',
        provider: 'openai',
        model: 'm',
        api_key: OPENAI_KEY,
        base_url: `${vendor.baseUrl}/v1`,
      });
      expect((await admin('/quota', { review_preparations: 5 }, 'PUT')).body.used).toBe(0);
      vendor.answer = (schema) => (schema === 'column_mapping' ? { mapping: { email: 'Contact', age: 'Years' } } : {});
      vendor.script = [{ delayMs: 60_000 }]; // the first suggestion hangs until the process dies

      const created = await call(`${base()}/v1/transformations/file`, {
        token: apiKey,
        body: { schema_id: schemaId, filename: 'p.csv', provider_id: provider.body.data.id },
      });
      await upload(created.body, 'Contact,Years,First name\nada@example.com,36,Ada\n');
      for (let i = 0; vendor.requests.length === 0; i++) {
        if (i > 600) throw new Error('the provider was never asked');
        await new Promise((r) => setTimeout(r, 25));
      }
      expect((await runState(apiKey, created.body.id)).review_state).toBeNull();
      await kill();
      await start();

      const ready = await waitUntil(apiKey, created.body.id, (r) => r.review_state === 'active');
      expect(ready.mapping_rule).toEqual({ email: 'Contact', age: 'Years', first_name: 'First name' });
      expect(vendor.requests).toHaveLength(2); // asked again after the restart, answered this time
      expect((await admin('/quota', { review_preparations: 5 }, 'PUT')).body.used).toBe(1);
      expectOnce(await eventTypes(created.body.id), ['SourceParsed', 'ReviewPrepared']);
    } finally {
      await vendor.stop();
    }
  }, 120_000);

  it('delivers the webhook after being killed mid-delivery: same webhook-id, status delivered, no event twice', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    try {
      const { apiKey, schemaId } = await organization();
      receiver.plan = ['slow']; // the first delivery is still waiting for its answer when the process dies
      const created = await call(`${base()}/v1/transformations/file`, {
        token: apiKey,
        body: { schema_id: schemaId, filename: 'p.csv', notify_url: `${receiver.url}/hooks` },
      });
      const id = created.body.id;
      await upload(created.body, 'E-mail,Age\nada@example.com,36\n');
      const ready = await waitUntil(apiKey, id, (r) => r.review_state === 'active');
      expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
      const [inFlight] = await receiver.waitFor(id, 1, 30_000);
      expect((await runState(apiKey, id)).notification_status).toBe('pending');
      await kill();
      await start();

      const delivered = await waitUntil(apiKey, id, (r) => r.notification_status === 'delivered');
      expect(delivered).toMatchObject({ status: 'completed', stage: 'final' });
      const deliveries = receiver.for(id);
      // At least once: the attempt cut off by the crash is made again, under the same id, and then no more.
      expect(deliveries).toHaveLength(2);
      expect(deliveries[1].headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
      expect(deliveries.map((d) => d.headers['x-service-event'])).toEqual(['transformation.finished', 'transformation.finished']);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.for(id)).toHaveLength(2);
      const types = await eventTypes(id);
      expectOnce(types, ['OutputProduced', 'WebhookScheduled']);
      expect(types.filter((t) => t === 'WebhookAttempted')).toHaveLength(1); // the cut-off attempt left no record
    } finally {
      await receiver.stop();
    }
  }, 120_000);
});
