import { Webhook } from 'standardwebhooks';
import { ApiError } from '../../apps/gateway/src/http/api-error';
import { DeliveriesService } from '../../apps/gateway/src/transformations/deliveries.service';
import { WebhookReceiver } from '../support/webhook-receiver';
import { DIRECTORY, type Directory } from '@app/directory';
import {
  ADMIN_TOKEN,
  call,
  eventually,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

/**
 * Webhook deliveries as people see them: a run's attempts (public API), the organization's
 * delivery log, sending a delivery again and test events, against a receiver on loopback.
 */

const FAST = { WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_DELAYS_MS: '60', WEBHOOK_MAX_ATTEMPTS: '2' };
const CSV = 'E-mail,Age\nada@example.com,36\n';

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('webhook deliveries: list, log, resend, test event', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let other: Awaited<ReturnType<typeof setupOrganization>>;
  let deliveries: DeliveriesService;
  let secret: string;
  let runId: string;
  let hookUrl: string;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService(FAST);
    org = await setupOrganization(svc);
    other = await setupOrganization(svc);
    deliveries = svc.app.get(DeliveriesService);
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

  const list = (id: string, query = '', token = org.apiKey) =>
    call(`${svc.baseUrl}/v1/transformations/${id}/deliveries${query}`, { token });

  it("a failing receiver's attempts are listed newest first, with status, error, duration and the answer's first characters", async () => {
    receiver.fallback = 'error'; // 500 "boom"
    hookUrl = `${receiver.url}/hooks?case=deliveries`;
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', notify_url: hookUrl },
    });
    expect(created.status).toBe(201);
    runId = created.body.id;
    await upload(created.body, CSV);
    const ready = await waitForRun(svc, org.apiKey, runId, (r) => r.review_state === 'active');
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    await waitForRun(svc, org.apiKey, runId, (r) => r.notification_status === 'failed');
    expect(receiver.for(runId)).toHaveLength(2);

    const res = await list(runId);
    expect(res.status).toBe(200);
    const deliveryId = receiver.for(runId)[0].headers['webhook-id'] as string;
    expect(res.body.data).toEqual(
      [2, 1].map((attempt) => ({
        id: `${deliveryId}:${attempt}`,
        delivery_id: deliveryId,
        event: 'transformation.finished',
        url: hookUrl,
        attempt,
        outcome: 'failed',
        status_code: 500,
        error: 'HTTP 500',
        duration_ms: expect.any(Number),
        response_excerpt: 'boom',
        sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      })),
    );
    expect(Date.parse(res.body.data[0].sent_at)).toBeGreaterThanOrEqual(Date.parse(res.body.data[1].sent_at));
    expect(res.body.meta).toMatchObject({ current_page: 1, per_page: 20, total: 2, from: 1, to: 2 });

    const second = await list(runId, '?page=2&per_page=1');
    expect(second.body.data.map((d: { attempt: number }) => d.attempt)).toEqual([1]);
    expect(second.body.meta).toMatchObject({ current_page: 2, per_page: 1, total: 2, last_page: 2 });
    expect(second.body.links.prev).toBe(`${svc.baseUrl}/v1/transformations/${runId}/deliveries?page=1&per_page=1`);
    for (const bad of ['?per_page=101', '?page=0', '?per_page=x'])
      expect(await list(runId, bad)).toMatchObject({ status: 422, body: { error: { code: 'validation_failed' } } });
  });

  it("another organization's run is 404, like an unknown one, on the list and on a resend", async () => {
    expect(await list(runId, '', other.apiKey)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await list('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await list('not-a-uuid')).status).toBe(404);
    const deliveryId = receiver.for(runId)[0].headers['webhook-id'] as string;
    expect((await refusal(deliveries.resendDelivery(other.orgId, runId, deliveryId, 'm'))).status).toBe(404);
    expect((await refusal(deliveries.resendDelivery(org.orgId, runId, 'no-such-delivery', 'm'))).status).toBe(404);
  });

  it("the organization's delivery log has every attempt, filtered by event and outcome; another organization sees none", async () => {
    const failed = await eventually(
      () => deliveries.listOrganizationDeliveries(org.orgId, { outcome: 'failed' }),
      (page) => page.meta.total >= 2,
    );
    expect(failed.data.slice(0, 2)).toEqual([
      expect.objectContaining({ run_id: runId, attempt: 2, status_code: 500, error: 'HTTP 500', response_excerpt: 'boom', url: hookUrl }),
      expect.objectContaining({ run_id: runId, attempt: 1, outcome: 'failed' }),
    ]);
    expect((await deliveries.listOrganizationDeliveries(org.orgId, { outcome: 'delivered' })).meta.total).toBe(0);
    expect((await deliveries.listOrganizationDeliveries(org.orgId, { event: 'transformation.failed' })).meta.total).toBe(0);
    expect((await deliveries.listOrganizationDeliveries(other.orgId, {})).data).toEqual([]);
    const bad = await refusal(deliveries.listOrganizationDeliveries(org.orgId, { outcome: 'maybe', per_page: '500' }));
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.fields ?? {}).sort()).toEqual(['outcome', 'per_page']);
  });

  it('resend: a new attempt of the same delivery (same X-Service-Id and webhook-id), listed like the others; 409 while one is pending', async () => {
    const first = receiver.for(runId)[0];
    const deliveryId = first.headers['webhook-id'] as string;
    // The re-sent attempt gets no answer in time: while it is under way, another resend is refused.
    receiver.plan = ['slow'];
    const accepted = await deliveries.resendDelivery(org.orgId, runId, deliveryId, 'member-1');
    expect(accepted).toMatchObject({ delivery_id: deliveryId, event: 'transformation.finished', run_id: runId, status: 'pending' });
    const pending = await refusal(deliveries.resendDelivery(org.orgId, runId, deliveryId, 'member-1'));
    expect({ status: pending.status, code: pending.code }).toEqual({ status: 409, code: 'delivery_pending' });
    await eventually(
      () => list(runId),
      (res) => res.body.meta.total === 3,
    );
    // One attempt per resend: no retry follows a failed one.
    await waitForRun(svc, org.apiKey, runId, (r) => r.notification_status === 'failed');

    // The receiver is fixed: the next resend is delivered.
    receiver.fallback = 'ok';
    await deliveries.resendDelivery(org.orgId, runId, deliveryId, 'member-1');
    const got = await receiver.waitFor(runId, 4);
    expect(got[3].headers).toMatchObject({ 'x-service-id': runId, 'webhook-id': deliveryId, 'x-service-event': 'transformation.finished' });
    expect(JSON.parse(got[3].body)).toMatchObject({ event: 'transformation.finished', id: runId });
    await waitForRun(svc, org.apiKey, runId, (r) => r.notification_status === 'delivered');
    const res = await list(runId);
    expect(res.body.data.map((d: any) => [d.attempt, d.outcome, d.status_code, d.error])).toEqual([
      [4, 'delivered', 200, null],
      [3, 'failed', null, 'no answer within the timeout'],
      [2, 'failed', 500, 'HTTP 500'],
      [1, 'failed', 500, 'HTTP 500'],
    ]);
    expect(res.body.data[0]).toMatchObject({ id: `${deliveryId}:4`, response_excerpt: 'ok', url: hookUrl });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.for(runId)).toHaveLength(4); // delivered: nothing more is sent
    const log = await eventually(
      () => deliveries.listOrganizationDeliveries(org.orgId, { outcome: 'delivered' }),
      (page) => page.meta.total === 1,
    );
    expect(log.data[0]).toMatchObject({ run_id: runId, attempt: 4, status_code: 200 });
  });

  it('a test event: signed with the organization secret like a real delivery, clearly marked, its outcome returned', async () => {
    receiver.fallback = 'ok';
    const result = await deliveries.sendTestEvent(org.orgId, `${receiver.url}/test-hook`);
    expect(result).toEqual({ delivered: true, status_code: 200, error: null, duration_ms: expect.any(Number) });
    const got = receiver.received.filter((r) => r.path === '/test-hook');
    expect(got).toHaveLength(1);
    const payload = JSON.parse(got[0].body);
    expect(payload).toMatchObject({ event: 'webhook.test', test: true, organization_id: org.orgId });
    expect(got[0].headers).toMatchObject({ 'x-service-event': 'webhook.test', 'x-service-webhook-secret': secret });
    const signed = {
      'webhook-id': got[0].headers['webhook-id'] as string,
      'webhook-timestamp': got[0].headers['webhook-timestamp'] as string,
      'webhook-signature': got[0].headers['webhook-signature'] as string,
    };
    expect(new Webhook(secret).verify(got[0].body, signed)).toEqual(payload);

    receiver.plan = ['error'];
    expect(await deliveries.sendTestEvent(org.orgId, `${receiver.url}/test-hook`)).toMatchObject({
      delivered: false,
      status_code: 500,
      error: 'HTTP 500',
    });
    // No default URL and none given: 422.
    expect((await refusal(deliveries.sendTestEvent(other.orgId))).status).toBe(422);
    // A URL saved before blanks were refused is tested where its deliveries go; given in the call, it is refused.
    const spaced = `${receiver.url}/old hook`;
    expect((await refusal(deliveries.sendTestEvent(other.orgId, spaced))).status).toBe(422);
    await svc.app.get<Directory>(DIRECTORY).updateOrganization(other.orgId, { webhook_url: spaced });
    expect(await deliveries.sendTestEvent(other.orgId)).toMatchObject({ delivered: true, status_code: 200 });
    expect(receiver.received.filter((r) => r.path === '/old%20hook')).toHaveLength(1);
  });

  it('an attempt is listed as sent when it was sent: its sent_at is before the receiver had it, and its duration reaches past that', async () => {
    receiver.plan = ['slow', 'ok']; // the first answers after the 300 ms timeout, the retry at once
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', notify_url: `${receiver.url}/hooks?case=sent-at` },
    });
    await upload(created.body, CSV);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.notification_status === 'delivered');
    const [first] = receiver.for(created.body.id);
    const timedOut = (await list(created.body.id)).body.data.find((a: { attempt: number }) => a.attempt === 1);
    expect(timedOut).toMatchObject({ outcome: 'failed', status_code: null });
    expect(Date.parse(timedOut.sent_at)).toBeLessThanOrEqual(first.at);
    expect(Date.parse(timedOut.sent_at) + timedOut.duration_ms).toBeGreaterThanOrEqual(first.at);
  });
});

/**
 * The spec's transformation.finished carries a download link: once the output is deleted there is none, and the event
 * is not sent with `download_url: null` (an automatic retry after the retention gives up; a resend is refused, 410).
 */
describe('a finished webhook once the output is deleted', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    // The output kept 2 s; the retry 3 s after a failed first attempt: past the retention.
    svc = await startService({ ...FAST, OUTPUT_RETENTION_SECONDS: '2', WEBHOOK_RETRY_DELAYS_MS: '3000' });
    org = await setupOrganization(svc);
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.stop();
  });

  it('gives the retry up with the reason, sends nothing without the link, and refuses a resend: 410 files_deleted', async () => {
    receiver.fallback = 'error';
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', notify_url: `${receiver.url}/hooks?case=deleted` },
    });
    const runId = created.body.id as string;
    await upload(created.body, CSV);
    const ready = await waitForRun(svc, org.apiKey, runId, (r) => r.review_state === 'active');
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    await waitForRun(svc, org.apiKey, runId, (r) => r.notification_status === 'failed', 20_000);

    // One request only: the first attempt, with its link.
    const sent = receiver.for(runId);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body).download_url).toMatch(/^http/);
    const attempts = await call(`${svc.baseUrl}/v1/transformations/${runId}/deliveries`, { token: org.apiKey });
    expect(attempts.body.data.map((d: { attempt: number; error: string }) => [d.attempt, d.error])).toEqual([
      [2, expect.stringContaining('the output was deleted when its retention ended')],
      [1, 'HTTP 500'],
    ]);
    const deliveries = svc.app.get(DeliveriesService);
    const deliveryId = sent[0].headers['webhook-id'] as string;
    const refused = await refusal(deliveries.resendDelivery(org.orgId, runId, deliveryId, 'member-1'));
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 410, code: 'files_deleted' });
    expect(receiver.for(runId)).toHaveLength(1);
  });
});
