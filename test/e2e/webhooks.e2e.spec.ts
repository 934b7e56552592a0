import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { runStreamId, type StoredEvent } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  ADMIN_TOKEN,
  call,
  httpFetch,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

/** Webhook deliveries against a real receiver on loopback: exact attempts, headers, payloads, signatures, restarts. */

const FAST = { WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_DELAYS_MS: '60,60' };
const CSV = 'E-mail,Age\nada@example.com,36\n';
const PAYLOAD_FIELDS = [
  'event',
  'id',
  'status',
  'stage',
  'schema_id',
  'metadata',
  'review_url',
  'review_state',
  'review_canceled_at',
  'review_approved_at',
  'review_expires_at',
  'mapping_rule',
  'source_headers',
  'completed_at',
  'failed_at',
  'error',
  'download_url',
  'rows_excluded', // an addition to the spec's payload (docs/api.md)
].sort();

const events = async (svc: Service, runId: string): Promise<StoredEvent[]> =>
  svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(runId));
const attempts = async (svc: Service, runId: string) =>
  (await events(svc, runId)).filter((e) => e.type === 'WebhookAttempted').map((e) => e.data as any);

describe('webhooks', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let secret: string;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService(FAST);
    org = await setupOrganization(svc);
    const rotated = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/webhook/rotate-secret`, {
      token: ADMIN_TOKEN,
      method: 'POST',
      body: {},
    });
    secret = rotated.body.webhook_secret;
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.stop();
  });
  beforeEach(() => {
    receiver.plan = [];
    receiver.fallback = 'ok';
  });

  async function reviewReady(body: Record<string, unknown> = {}, csv = CSV) {
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', ...body },
    });
    expect(created.status).toBe(201);
    await upload(created.body, csv);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active' || r.status === 'failed');
    return created.body as { id: string; review_url: string };
  }

  async function finished(body: Record<string, unknown> = {}) {
    const run = await reviewReady({ notify_url: `${receiver.url}/hooks?source=test`, metadata: { batch: 7 }, ...body });
    expect((await reviewApi(run.review_url).approve()).status).toBe(200);
    return run;
  }

  it("transformation.finished: once, with the spec's headers and payload and a verifiable Standard Webhooks signature", async () => {
    const run = await finished();
    const [delivery] = await receiver.waitFor(run.id, 1);
    const done = await waitForRun(svc, org.apiKey, run.id, (r) => r.notification_status === 'delivered');
    expect(delivery.path).toBe('/hooks?source=test');
    expect(delivery.headers).toMatchObject({
      'x-service-event': 'transformation.finished',
      'x-service-id': run.id,
      'x-service-webhook-secret': secret,
      'content-type': 'application/json',
    });
    const payload = JSON.parse(delivery.body);
    expect(Object.keys(payload).sort()).toEqual(PAYLOAD_FIELDS);
    expect(payload).toMatchObject({
      event: 'transformation.finished',
      id: run.id,
      status: 'completed',
      stage: 'final',
      review_state: 'approved',
      error: null,
      metadata: { batch: 7 },
      schema_id: org.schemaId,
      review_url: done.review_url,
      source_headers: ['E-mail', 'Age'],
    });
    const output = await httpFetch(payload.download_url);
    expect(output.status).toBe(200);
    expect(await output.json()).toEqual([{ email: 'ada@example.com', first_name: null, age: 36, born: null }]);

    // Standard Webhooks: verifiable with the organization's secret, and bound to this body.
    const signed = {
      'webhook-id': delivery.headers['webhook-id'] as string,
      'webhook-timestamp': delivery.headers['webhook-timestamp'] as string,
      'webhook-signature': delivery.headers['webhook-signature'] as string,
    };
    expect(signed['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(new Webhook(secret).verify(delivery.body, signed)).toEqual(payload);
    expect(() => new Webhook(secret).verify(delivery.body.replace('"completed"', '"failed"'), signed)).toThrow();

    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.for(run.id)).toHaveLength(1);
    expect(await attempts(svc, run.id)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'delivered', status_code: 200, next_attempt_at: null }),
    ]);
  });

  it('notification_status goes pending -> delivered across a failed first attempt', async () => {
    receiver.plan = ['error'];
    const slow = await startService({ ...FAST, WEBHOOK_RETRY_DELAYS_MS: '700' });
    try {
      const o = await setupOrganization(slow);
      const created = await call(`${slow.baseUrl}/v1/transformations/file`, {
        token: o.apiKey,
        body: { schema_id: o.schemaId, filename: 'p.csv', notify_url: receiver.url },
      });
      await upload(created.body, CSV);
      const ready = await waitForRun(slow, o.apiKey, created.body.id, (r) => r.review_state === 'active');
      await reviewApi(ready.review_url).approve();
      await waitForRun(slow, o.apiKey, created.body.id, (r) => r.notification_status === 'pending' && r.status === 'completed');
      await waitForRun(slow, o.apiKey, created.body.id, (r) => r.notification_status === 'delivered');
      const tried = await attempts(slow, created.body.id);
      expect(tried.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
        [1, 'failed', 500],
        [2, 'delivered', 200],
      ]);
      expect(Date.parse(tried[1].attempted_at) - Date.parse(tried[0].attempted_at)).toBeGreaterThanOrEqual(650);
    } finally {
      await slow.stop();
    }
  });

  it.each([
    ['500', 'error', 'HTTP 500'],
    ['slow answers past the timeout', 'slow', 'no answer within the timeout'],
    ['connection resets', 'reset', 'connection reset'],
    ['redirects (not followed)', 'redirect', 'redirect (HTTP 302) not followed'],
  ] as const)('gives up after exactly 3 attempts on %s: notification_status failed', async (_name, behaviour, error) => {
    receiver.fallback = behaviour;
    const run = await finished();
    await waitForRun(svc, org.apiKey, run.id, (r) => r.notification_status === 'failed', 15000);
    expect(receiver.for(run.id)).toHaveLength(3);
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
    const tried = await attempts(svc, run.id);
    expect(tried.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'failed', error],
      [2, 'failed', error],
      [3, 'failed', error],
    ]);
    expect(tried[2].next_attempt_at).toBeNull();
  });

  it('honours Retry-After on 429 within the attempt budget', async () => {
    receiver.plan = ['rate-limited'];
    receiver.retryAfterSeconds = 1;
    const run = await finished();
    const hits = await receiver.waitFor(run.id, 2);
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(900);
    await waitForRun(svc, org.apiKey, run.id, (r) => r.notification_status === 'delivered');
    expect((await attempts(svc, run.id)).map((a) => a.status_code)).toEqual([429, 200]);
  });

  it("acknowledges on the status line without reading a receiver's endless body", async () => {
    receiver.plan = ['endless-body'];
    const run = await finished();
    // Reading the body would never end (the receiver keeps writing): the delivery would hang and this wait run out.
    await waitForRun(svc, org.apiKey, run.id, (r) => r.notification_status === 'delivered', 10_000);
    expect(receiver.for(run.id)).toHaveLength(1);
  });

  it('transformation.review.canceled goes to the organization default URL; notification_status stays null', async () => {
    await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/webhook`, {
      token: ADMIN_TOKEN,
      method: 'PUT',
      body: { url: `${receiver.url}/default` },
    });
    try {
      const run = await reviewReady();
      expect((await reviewApi(run.review_url).cancel()).status).toBe(200);
      const [delivery] = await receiver.waitFor(run.id, 1);
      expect(delivery.path).toBe('/default');
      expect(delivery.headers['x-service-event']).toBe('transformation.review.canceled');
      expect(JSON.parse(delivery.body)).toMatchObject({
        event: 'transformation.review.canceled',
        review_state: 'canceled',
        download_url: null,
        review_canceled_at: expect.any(String),
      });
      expect((await call(`${svc.baseUrl}/v1/transformations/${run.id}`, { token: org.apiKey })).body.notification_status).toBeNull();
    } finally {
      await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/webhook`, { token: ADMIN_TOKEN, method: 'PUT', body: { url: null } });
    }
  });

  it('transformation.failed for a failed run; nothing for review readiness or edits; nothing without a target', async () => {
    const failed = await reviewReady({ notify_url: receiver.url }, '');
    const [delivery] = await receiver.waitFor(failed.id, 1);
    expect(JSON.parse(delivery.body)).toMatchObject({
      event: 'transformation.failed',
      status: 'failed',
      error: { code: 'source_file_empty' },
      download_url: null,
      failed_at: expect.any(String),
    });

    const edited = await reviewReady({ notify_url: receiver.url });
    expect((await reviewApi(edited.review_url).edit({ email: null })).status).toBe(200);
    const silent = await reviewReady();
    await reviewApi(silent.review_url).approve();
    await waitForRun(svc, org.apiKey, silent.id, (r) => r.status === 'completed' && r.stage === 'final');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.for(edited.id)).toHaveLength(0);
    expect(receiver.for(silent.id)).toHaveLength(0);
    expect((await call(`${svc.baseUrl}/v1/transformations/${silent.id}`, { token: org.apiKey })).body.notification_status).toBeNull();
  });

  it('refuses webhook and callback URLs that name a local or private address, in any spelling', async () => {
    const guarded = await startService({ WEBHOOK_ALLOWED_ADDRESSES: '' });
    try {
      const o = await setupOrganization(guarded);
      for (const url of [
        'http://127.0.0.1:9/h',
        'http://localhost:9/h',
        'http://[::1]/h',
        'http://2130706433/h',
        'http://0x7f.0.0.1/h',
        'http://169.254.169.254/latest/meta-data',
        'http://10.0.0.1/h',
        'http://100.64.0.1/h',
        'http://[::ffff:10.0.0.1]/h',
      ]) {
        for (const field of ['notify_url', 'success_callback', 'cancel_callback']) {
          const res = await call(`${guarded.baseUrl}/v1/transformations/file`, {
            token: o.apiKey,
            body: { schema_id: o.schemaId, filename: 'a.csv', [field]: url },
          });
          expect({ url, field, status: res.status }).toEqual({ url, field, status: 422 });
        }
        const admin = await call(`${guarded.baseUrl}/admin/v1/organizations/${o.orgId}/webhook`, {
          token: ADMIN_TOKEN,
          method: 'PUT',
          body: { url },
        });
        expect({ url, status: admin.status }).toEqual({ url, status: 422 });
      }
    } finally {
      await guarded.stop();
    }
  });

  it('requires HTTPS for webhook and callback URLs in production', async () => {
    const production = await startService({ NODE_ENV: 'production' });
    try {
      const o = await setupOrganization(production);
      for (const field of ['notify_url', 'success_callback', 'cancel_callback']) {
        const res = await call(`${production.baseUrl}/v1/transformations/file`, {
          token: o.apiKey,
          body: { schema_id: o.schemaId, filename: 'a.csv', [field]: 'http://example.com/h' },
        });
        expect(res.status).toBe(422);
        expect(res.body.error.fields[field][0]).toContain('HTTPS');
      }
      const admin = await call(`${production.baseUrl}/admin/v1/organizations/${o.orgId}/webhook`, {
        token: ADMIN_TOKEN,
        method: 'PUT',
        body: { url: 'http://example.com/h' },
      });
      expect(admin.status).toBe(422);
    } finally {
      await production.stop();
    }
  });
});

describe('webhooks across restarts and behind the address guard', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterAll(() => receiver.stop());

  it('makes the remaining attempts after a restart between attempts, and never resends a delivered webhook', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-restart-'));
    const env = { ...FAST, WEBHOOK_RETRY_DELAYS_MS: '1500' };
    let svc = await startService(env, dir);
    const org = await setupOrganization(svc);
    receiver.plan = ['error'];
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', notify_url: receiver.url },
    });
    await upload(created.body, CSV);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    await reviewApi(ready.review_url).approve();
    await receiver.waitFor(created.body.id, 1);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.notification_status === 'pending');
    while ((await attempts(svc, created.body.id)).length < 1) await new Promise((r) => setTimeout(r, 20));
    await svc.stop(); // killed between attempt 1 and attempt 2

    svc = await startService({ ...env, PORT: new URL(svc.baseUrl).port }, dir);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.notification_status === 'delivered', 10000);
    expect(receiver.for(created.body.id)).toHaveLength(2);
    await svc.stop();

    svc = await startService({ ...env, PORT: new URL(svc.baseUrl).port }, dir);
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.for(created.body.id)).toHaveLength(2);
    expect((await attempts(svc, created.body.id)).map((a) => a.outcome)).toEqual(['failed', 'delivered']);
    expect((await events(svc, created.body.id)).filter((e) => e.type === 'WebhookScheduled')).toHaveLength(1);
    await svc.stop();
  });

  it('with the guard on, a delivery to a loopback receiver is refused at connect time and the receiver gets nothing', async () => {
    // Created while loopback was allowed, then delivered by a service whose guard lets nothing private through.
    const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-guard-'));
    let svc = await startService(FAST, dir);
    const org = await setupOrganization(svc);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', notify_url: `${receiver.url}/guarded` },
    });
    await upload(created.body, CSV);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    await svc.stop();

    svc = await startService({ ...FAST, WEBHOOK_ALLOWED_ADDRESSES: '', PORT: new URL(svc.baseUrl).port }, dir);
    try {
      await reviewApi(ready.review_url).cancel();
      await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'canceled');
      for (let i = 0; i < 100 && (await attempts(svc, created.body.id)).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
      const tried = await attempts(svc, created.body.id);
      expect(tried.map((a) => [a.outcome, a.error])).toEqual(Array(3).fill(['failed', 'refused: the address is not public']));
      expect(receiver.received.filter((r) => r.path === '/guarded')).toHaveLength(0);
    } finally {
      await svc.stop();
    }
  });
});

/** A file run whose upload never comes fails with upload_expired once `upload.expires_at` passes (docs/api.md, Run errors). */
describe('an upload that never comes', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    // 3 s, not 1: the in-time case uploads after creating the run, on a machine that may be loaded.
    svc = await startService({ ...FAST, UPLOAD_TTL_SECONDS: '3', SWEEP_INTERVAL_MS: '100' });
    org = await setupOrganization(svc);
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.stop();
  });

  it('fails the run with upload_expired, sends transformation.failed, and refuses the late upload', async () => {
    const before = Date.now();
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', notify_url: `${receiver.url}/hooks`, metadata: { case: 'no-upload' } },
    });
    expect(created.status).toBe(201);
    // A whole second, at least the TTL from creation, and the very second the signed URL stops working.
    const expiresAt = Date.parse(created.body.upload.expires_at);
    expect(expiresAt % 1000).toBe(0);
    expect(expiresAt - before).toBeGreaterThanOrEqual(3000);
    expect(Number(new URL(created.body.upload.url).searchParams.get('expires')) * 1000).toBe(expiresAt);
    const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed', 15_000);
    expect(failed).toMatchObject({ terminal: true, stage: 'review', review_state: null, download_url: null });
    expect(failed.upload).toBeUndefined();
    expect(failed.error).toEqual({
      code: 'upload_expired',
      message: `No file was uploaded before the upload instructions expired at ${created.body.upload.expires_at}.`,
      type: 'timeout',
      stage: 'upload',
      retryable: true,
      context: [],
    });
    expect(Date.parse(failed.failed_at)).toBeGreaterThanOrEqual(Date.parse(created.body.upload.expires_at));

    const [delivery] = await receiver.waitFor(created.body.id, 1);
    expect(delivery.headers['x-service-event']).toBe('transformation.failed');
    const payload = JSON.parse(delivery.body);
    expect(Object.keys(payload).sort()).toEqual(PAYLOAD_FIELDS);
    expect(payload).toMatchObject({
      event: 'transformation.failed',
      id: created.body.id,
      status: 'failed',
      stage: 'review',
      metadata: { case: 'no-upload' },
      error: { code: 'upload_expired', type: 'timeout', stage: 'upload' },
      failed_at: failed.failed_at,
    });

    const late = await upload(created.body, CSV);
    expect(late.status).toBe(403);
    expect(JSON.parse(late.body).error.code).toBe('url_expired');
    // Even under a URL signed anew, the failed run takes no file.
    const fresh = await svc.app
      .get<BlobStore>(BLOB_STORE)
      .presign(`runs/${created.body.id}/source`, 'PUT', { expiresAt: new Date(Date.now() + 60_000), contentType: 'text/csv' });
    const refused = await upload({ upload: fresh }, CSV);
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).error.code).toBe('upload_not_expected');
    const types = (await events(svc, created.body.id)).map((e) => e.type).filter((t) => t !== 'WebhookAttempted');
    expect(types).toEqual(['RunCreated', 'RunFailed', 'WebhookScheduled']);
  });

  it('keeps a run whose file arrived in time, and never fails a run twice', async () => {
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv' },
    });
    expect((await upload(created.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(created.body.upload.expires_at) - Date.now()) + 300));
    const run = await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey });
    expect(run.body).toMatchObject({ status: 'completed', review_state: 'active', error: null });
    expect((await events(svc, created.body.id)).some((e) => e.type === 'RunFailed')).toBe(false);
  });

  const newFileRun = () =>
    call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, body: { schema_id: org.schemaId, filename: 'p.csv' } });

  // The URL is checked when the PUT begins (as S3 checks a pre-signed one), so a file that began
  // arriving in time is the run's file however long it takes; the sweeps every 100 ms meanwhile
  // must not expire the run under it (docs/decisions.md, "An upload that began in time is not expired under it").
  it('receives a file that began arriving in time and ends after the window; a second PUT meanwhile is 409 upload_in_progress', async () => {
    const created = await newFileRun();
    const slow = slowUpload(created.body.upload, CSV);
    await slow.started;
    const second = await upload(created.body, CSV);
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body).error).toMatchObject({ code: 'upload_in_progress', type: 'conflict' });
    expect(second.retryAfter).toBe('2');
    // Past the window and the sweeper's 5 s margin, many sweeps later, the run still waits for the file under way.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(created.body.upload.expires_at) - Date.now()) + 6500));
    const waiting = await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey });
    expect(waiting.body).toMatchObject({ status: 'awaiting_upload', error: null });
    expect(await slow.finish()).toEqual({ status: 200, body: '' });
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect((await events(svc, created.body.id)).some((e) => e.type === 'RunFailed')).toBe(false);
  });

  it('receives a retry sent at once after a dropped upload, before or after the service noticed the drop', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const created = await newFileRun();
      const slow = slowUpload(created.body.upload, CSV);
      await slow.started;
      slow.abort();
      expect([attempt, (await upload(created.body, CSV)).status]).toEqual([attempt, 200]);
      await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    }
  });

  it('expires the run once an upload that began in time was dropped', async () => {
    const created = await newFileRun();
    const slow = slowUpload(created.body.upload, CSV);
    await slow.started;
    slow.abort();
    const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed', 15_000);
    expect(failed.error).toMatchObject({ code: 'upload_expired', stage: 'upload' });
  });
});

/** A PUT of `body` that sends its first half now and the rest on `finish()` (or is dropped by `abort()`). */
function slowUpload(target: { url: string; method: string; headers: Record<string, string> }, body: string) {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const req = httpRequest(target.url, { method: target.method, headers: { ...target.headers, 'content-length': String(bytes.length) } });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined); // a dropped upload's answer is never read
  req.flushHeaders();
  // The first half is taken once the route holds the run's upload lease and reads the body.
  const started = new Promise<void>((resolve) => req.write(bytes.subarray(0, half), () => setTimeout(resolve, 300)));
  return {
    started,
    finish: () => {
      req.end(bytes.subarray(half));
      return answer;
    },
    abort: () => req.destroy(),
  };
}
