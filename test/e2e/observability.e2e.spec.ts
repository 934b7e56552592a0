import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import {
  ADMIN_TOKEN,
  call,
  eventually,
  freePort,
  reviewApi,
  setupOrganization,
  startService,
  untilAnswers,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';
import { spawnBuiltApp } from '../support/built-service';
import { spawnTracked } from '../support/suite-resources';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * What operators see (issue 19): health, metrics and the log. The gateway's probes and
 * metrics in-process; the log of a whole run from the built service, as an operator would
 * read it from the process's standard output.
 */
const ROOT = join(__dirname, '..', '..');
const CSV = ['E-mail,First,Years', 'ada@example.com,Ada,36', 'alan@example.com,Alan,41'].join('\n');
/** One series' value in a service's /metrics (0 when the series has no sample yet). */
async function metricValue(base: string, series: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** The built service (`npm run build`), once for the file's suites that start it as a process. */
let built = false;
const builtOnce = () => {
  if (!built) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  built = true;
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

async function fullRun(base: string, apiKey: string, schemaId: string, notifyUrl: string, body: Record<string, unknown> = {}) {
  const created = await call(`${base}/v1/transformations/file`, {
    token: apiKey,
    body: { schema_id: schemaId, filename: 'people.csv', notify_url: notifyUrl, ...body },
  });
  expect(created.status).toBe(201);
  expect((await upload(created.body, CSV)).status).toBe(200);
  return created.body as { id: string; review_url: string; upload: { url: string } };
}

describe('operators: a process that cannot start says why', () => {
  beforeAll(() => builtOnce(), 180_000);

  const start = (app: string, env: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'svc-nostart-'))) =>
    spawnSync(process.execPath, [join(ROOT, `dist/apps/${app}/src/main.js`)], {
      env: { ...process.env, HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_FORMAT: 'json', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('the service with a short ADMIN_TOKEN: exit 1, naming it, and nothing written to its data directory', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-nostart-'));
    const run = start('standalone', { PORT: '0', ADMIN_TOKEN: 'short' }, dataDir);
    expect(run.status).toBe(1);
    // Refused as the configuration is read, before anything was made: no database, no key files left behind.
    expect(readdirSync(dataDir)).toEqual([]);
    // One JSON line, as the process logs (LOG_FORMAT=json): a log pipeline reads it like any other.
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 60,
      context: 'Config',
      msg: 'The service could not start: ADMIN_TOKEN must be at least 32 characters long (it has 5); generate one with `openssl rand -hex 32`.',
      err: { type: 'Error' },
    });
  });

  it('the same as text, with its stack, where the logs are for a person (LOG_FORMAT=pretty)', () => {
    const run = start('standalone', { PORT: '0', ADMIN_TOKEN: 'short', LOG_FORMAT: 'pretty' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^The service could not start: ADMIN_TOKEN must be at least 32 characters long \(it has 5\)[^\n]*\nError: ADMIN_TOKEN/,
    );
  });

  it('a worker with a HEALTH_PORT that is no port: exit 1, naming it', () => {
    const run = start('projector', { HEALTH_PORT: 'abc' });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stderr.trim())).toMatchObject({
      level: 60,
      msg: 'The service could not start: HEALTH_PORT must be a port number from 1 to 65535 (0: none), got "abc"',
    });
  });
});

describe('operators: probes and metrics of the gateway', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.stop();
  });

  it('answers liveness and readiness (every consumer group of the process), outside the OpenAPI document', async () => {
    const live = await call(`${svc.baseUrl}/healthz`);
    expect([live.status, live.body]).toEqual([200, { status: 'ok' }]);
    const ready = await call(`${svc.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.info.consumers.groups.sort()).toEqual(['ingestion', 'mapping', 'notifier', 'output', 'projector']);
    expect(ready.body.info).toMatchObject({ event_store: { status: 'up' }, read_model: { status: 'up' }, blob_store: { status: 'up' } });
    const paths = Object.keys((await call(`${svc.baseUrl}/openapi.json`)).body.paths);
    expect(paths.filter((p) => /healthz|readyz|metrics/.test(p))).toEqual([]);
  });

  it('counts requests by route template, steps, webhooks, lags and refusals, with no run or organization id in any label', async () => {
    const org = await setupOrganization(svc);
    const run = await fullRun(svc.baseUrl, org.apiKey, org.schemaId, `${receiver.url}/hook`);
    await waitForRun(svc, org.apiKey, run.id, (r) => r.review_state === 'active');
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years' });
    expect((await reviewApi(run.review_url).approve()).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.id, (r) => r.notification_status === 'delivered');
    expect((await call(`${svc.baseUrl}/v1/transformations/${run.id}`, { token: 'not-a-key' })).status).toBe(401);

    const res = await fetch(`${svc.baseUrl}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? null : Number(line.slice(series.length + 1));
    };
    expect(
      value('http_request_duration_seconds_count{method="POST",route="/v1/transformations/file",status_code="201"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value('http_request_duration_seconds_count{method="GET",route="/v1/transformations/:transformationRun",status_code="401"}'),
    ).toBeGreaterThanOrEqual(1);
    for (const step of ['ingestion', 'review_preparation', 'output'])
      expect({ step, count: value(`transform_step_duration_seconds_count{step="${step}"}`) }).toEqual({ step, count: expect.any(Number) });
    expect(value('transform_step_rows_per_second_count{step="output"}')).toBeGreaterThanOrEqual(1);
    expect(value('transform_webhook_attempts_total{event="transformation.finished",outcome="delivered"}')).toBeGreaterThanOrEqual(1);
    expect(
      value('transform_consumer_handler_duration_seconds_count{group="output",event_type="ReviewApproved",outcome="ok"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(value('transform_consumer_lag_events{group="projector",lane=""}')).toEqual(expect.any(Number));
    expect(value('transform_relay_lag_events{relay="relay:in-process"}')).toEqual(expect.any(Number));
    expect(value('transform_runs{status="completed",stage="final"}')).toBeGreaterThanOrEqual(1);
    // Cardinality: ids never become labels.
    expect(text.split('\n').filter((l) => !l.startsWith('#') && UUID.test(l))).toEqual([]);
  });

  it('counts quota refusals', async () => {
    const org = await setupOrganization(svc);
    const quota = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/quota`, {
      token: ADMIN_TOKEN,
      method: 'PUT',
      body: { review_preparations: 0 },
    });
    expect(quota.status).toBe(200);
    const series = 'transform_quota_refusals_total{quota="review_preparation"}';
    const before = await metricValue(svc.baseUrl, series);
    const refused = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv' },
    });
    expect(refused.status).toBe(429);
    expect((await metricValue(svc.baseUrl, series)) - before).toBe(1);
  });

  it('counts rate-limit refusals', async () => {
    const limited = await startService({ RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const org = await setupOrganization(limited);
      const get = () => call(`${limited.baseUrl}/v1/providers`, { token: org.apiKey });
      const series = 'transform_rate_limit_refusals_total{limit="api_key"}';
      const before = await metricValue(limited.baseUrl, series);
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(429);
      expect((await metricValue(limited.baseUrl, series)) - before).toBe(1);
    } finally {
      await limited.stop();
    }
  });
});

describe('operators: the log of a whole run', () => {
  let child: ChildProcess;
  let output = '';
  let port: number;
  let vendor: FakeVendor;
  let receiver: WebhookReceiver;
  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    builtOnce();
    vendor = new FakeVendor();
    await vendor.start();
    receiver = new WebhookReceiver();
    await receiver.start();
    port = await freePort();
    child = spawnTracked('service for its log', process.execPath, [join(ROOT, 'dist/apps/standalone/src/main.js')], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-log-')),
        ADMIN_TOKEN,
        PUBLIC_BASE_URL: base(),
        EVENT_STORE_POLL_MS: '50',
        WEBHOOK_POLL_MS: '25',
        WEBHOOK_RETRY_DELAYS_MS: '60,60',
        WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1,::1',
        AI_ALLOWED_ADDRESSES: '127.0.0.1,::1',
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString('utf8')));
    await untilAnswers(`${base()}/healthz`, () => `the service (its output so far:\n${output})`, 15_000);
  }, 180_000);
  afterAll(async () => {
    child?.kill('SIGTERM');
    await vendor?.stop();
    await receiver?.stop();
  });

  it('is one JSON object per line, with request, run and event context, and holds no secret', async () => {
    const org = await call(`${base()}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Logged' } });
    const orgId = org.body.id as string;
    const apiKey = org.body.api_key as string;
    const admin = (path: string, body: unknown) => call(`${base()}/admin/v1/organizations/${orgId}${path}`, { token: ADMIN_TOKEN, body });
    const webhookSecret = (
      await call(`${base()}/admin/v1/organizations/${orgId}/webhook/rotate-secret`, { token: ADMIN_TOKEN, method: 'POST', body: {} })
    ).body.webhook_secret as string;
    const schema = await admin('/schemas', {
      name: 'People',
      fields: {
        email: { description: 'E-mail', data_type: 'email', is_required: true },
        first_name: { description: 'First name', data_type: 'string', is_required: false },
      },
    });
    const provider = await admin('/providers', {
      name: 'Fake OpenAI',
      provider: 'openai',
      model: 'gpt-test',
      api_key: OPENAI_KEY,
      base_url: `${vendor.baseUrl}/v1`,
    });
    vendor.answer = () => ({ mapping: [] });
    const run = await fullRun(base(), apiKey, schema.body.data.id, `${receiver.url}/hook`, { provider_id: provider.body.data.id });
    const review = reviewApi(run.review_url);
    for (let i = 0; (await review.state()).body.phase !== 'active'; i++) {
      if (i > 300) throw new Error('the review did not open');
      await new Promise((r) => setTimeout(r, 50));
    }
    await review.edit({ email: 'E-mail', first_name: 'First' });
    receiver.plan = ['error']; // the first delivery fails, the retry gets through
    expect((await review.approve()).status).toBe(200);
    await receiver.waitFor(run.id, 2);
    const done = (await call(`${base()}/v1/transformations/${run.id}`, { token: apiKey })).body;
    expect(done.status).toBe('completed');
    expect(vendor.requests.length).toBeGreaterThanOrEqual(1);
    // The vendor call is counted by provider and outcome, with its latency.
    expect(await metricValue(base(), 'transform_ai_vendor_call_duration_seconds_count{provider="openai",outcome="ok"}')).toBe(
      vendor.requests.length,
    );
    // The lines come through the pipe as the service writes them: waited for up to the last one looked at below.
    const failedAttemptLogged = (text: string) =>
      text.split('\n').some((line) => line.includes('"webhook_event":"transformation.finished"') && /"level":[45]0/.test(line));
    await eventually(async () => output, failedAttemptLogged);

    const lines = output.split('\n').filter(Boolean);
    const entries = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, any>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
    // A request's line: its id (the X-Request-Id the client got), route and the caller's organization.
    const created = entries.find((e) => e.req?.method === 'POST' && e.req?.url === '/v1/transformations/file');
    expect(created).toMatchObject({ req: { id: expect.stringMatching(UUID) }, res: { statusCode: 201 }, organization_id: orgId });
    // A consumer's lines: the group, run, organization, event type and position.
    expect(entries.find((e) => e.group === 'output' && e.event_type === 'ReviewApproved')).toMatchObject({
      run_id: run.id,
      organization_id: orgId,
      position: expect.any(Number),
    });

    // A failed webhook attempt's line says whose it was: run, organization, webhook event.
    expect(entries.find((e) => e.webhook_event === 'transformation.finished' && e.level >= 40)).toMatchObject({
      run_id: run.id,
      organization_id: orgId,
    });

    const signatures = [run.review_url, run.upload.url, done.download_url].map((u: string) => new URL(u).searchParams.get('signature'));
    const secrets = { ADMIN_TOKEN, apiKey, OPENAI_KEY, webhookSecret, signatures: signatures.filter(Boolean) as string[] };
    expect(secrets.signatures.length).toBeGreaterThanOrEqual(2);
    // The signed URLs were logged (the review page's calls, the upload), their signatures redacted.
    expect(entries.some((e) => typeof e.req?.url === 'string' && e.req.url.includes('signature=[redacted]'))).toBe(true);
    for (const [name, values] of Object.entries(secrets))
      for (const secret of [values].flat()) expect({ name, found: output.includes(secret) }).toEqual({ name, found: false });
  });
});

describe("operators: the file work's threads", () => {
  let child: ChildProcess;
  let port: number;
  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    builtOnce();
    port = await freePort();
    // As `npm start` runs it, with two threads.
    child = spawnBuiltApp('standalone', {
      port,
      dataDir: mkdtempSync(join(tmpdir(), 'svc-threads-')),
      publicBaseUrl: base(),
      env: { CPU_WORKER_THREADS: '2' },
    });
    await untilAnswers(`${base()}/healthz`, () => 'the service', 15_000);
  }, 180_000);
  afterAll(() => void child?.kill('SIGTERM'));

  it("starts the file work's threads as a big upload begins, before its last byte", async () => {
    const org = await call(`${base()}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Big upload' } });
    const schema = await call(`${base()}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'People', fields: { email: { description: 'E-mail', data_type: 'email', is_required: true } } },
    });
    const created = await call(`${base()}/v1/transformations/file`, {
      token: org.body.api_key,
      body: { schema_id: schema.body.data.id, filename: 'big.csv' },
    });
    // 17 MiB and more: a file whose read is split over two threads.
    const rows = Array.from({ length: 600_000 }, (_, i) => `user${i}@example.com,Name ${i},${20 + (i % 50)}\n`);
    const body = Buffer.from(`E-mail,First,Years\n${rows.join('')}`);
    expect(body.length).toBeGreaterThan(17 * 1024 * 1024);
    expect(await metricValue(base(), 'transform_file_work_threads')).toBe(0);

    const url = new URL(created.body.upload.url as string);
    const answered = new Promise<number>((resolve, reject) => {
      const put = request(
        url,
        { method: 'PUT', headers: { ...created.body.upload.headers, 'content-length': String(body.length) } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      put.on('error', reject);
      put.write(body.subarray(0, 1024 * 1024));
      // The rest only once the service has both threads: the upload is still arriving meanwhile.
      void (async () => {
        for (let i = 0; (await metricValue(base(), 'transform_file_work_threads')) < 2; i++) {
          if (i > 200) return put.destroy(new Error('the threads did not start during the upload'));
          await new Promise((r) => setTimeout(r, 50));
        }
        put.end(body.subarray(1024 * 1024));
      })();
    });
    expect(await answered).toBe(200);
    // And the upload went on to its review as any other.
    for (let i = 0; ; i++) {
      const run = (await call(`${base()}/v1/transformations/${created.body.id}`, { token: org.body.api_key })).body;
      if (run.review_state === 'active') break;
      if (run.status === 'failed' || i > 600) throw new Error(`the run did not reach its review: ${JSON.stringify(run)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 120_000);
  it('takes rows of 1 MB (the longest the default limits let in) through review and output in threads of 64 MB, every value whole', async () => {
    const org = await call(`${base()}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Long rows' } });
    const text = (description: string) => ({ description, data_type: 'string', is_required: true });
    const schema = await call(`${base()}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Notes', fields: { email: { ...text('E-mail'), data_type: 'email' }, notes: text('Notes'), summary: text('Summary') } },
    });
    const created = await call(`${base()}/v1/transformations/file`, {
      token: org.body.api_key,
      body: { schema_id: schema.body.data.id, filename: 'notes.csv' },
    });
    // Four quoted cells of 240,000 characters a row, with commas and doubled quotes: 24 rows are more than the 20 first
    // rows the header is told from, which the scan held twice over and ran its thread out of heap.
    const note = (i: number, cell: number) => `${i}.${cell} ${'lorem ipsum, dolor ""sit"" amet '.repeat(7_500)}`;
    const rows = Array.from(
      { length: 24 },
      (_, i) => `user${i}@example.com,"${note(i, 1)}","${note(i, 2)}","${note(i, 3)}","${note(i, 4)}"\n`,
    );
    const body = `E-mail,Notes,Summary,Details,Comments\n${rows.join('')}`;
    expect(rows[0].length).toBeGreaterThan(960_000);
    expect(rows[0].length).toBeLessThan(1_000_000);
    expect((await upload(created.body, body)).status).toBe(200);
    const svc = { baseUrl: base() };
    const open = await waitForRun(
      svc,
      org.body.api_key,
      created.body.id,
      (r) => r.review_state === 'active' || r.status === 'failed',
      60_000,
    );
    expect(open.error ?? null).toBeNull();
    expect(open.total_rows).toBe(24);
    const review = reviewApi(open.review_url);
    expect((await review.edit({ email: 'E-mail', notes: 'Notes', summary: 'Summary' })).status).toBe(200);
    // The page is sent the start of each long value, marked (20 rows of 1 MB whole ran the main thread's heap out).
    const preview = await review.preview();
    expect(preview.status).toBe(200);
    expect(preview.body.rows).toHaveLength(20);
    expect(preview.body.rows[0].email).toEqual({ value: 'user0@example.com', problem: null });
    expect(preview.body.rows[0].notes).toMatchObject({ value: note(0, 1).replace(/""/g, '"').slice(0, 2000), shortened: true });
    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(
      svc,
      org.body.api_key,
      created.body.id,
      (r) => (r.status === 'completed' && r.stage === 'final') || r.status === 'failed',
      60_000,
    );
    expect(done.error ?? null).toBeNull();
    const records = (await (await fetch(done.download_url)).json()) as { email: string; notes: string; summary: string }[];
    expect(records).toHaveLength(24);
    expect(records[23]).toEqual({
      email: 'user23@example.com',
      notes: note(23, 1).replace(/""/g, '"'),
      summary: note(23, 2).replace(/""/g, '"'),
    });
  }, 120_000);
});
