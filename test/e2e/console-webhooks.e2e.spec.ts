import { ConsoleClient, organizationWithOwner, PASSWORD } from '../support/console-client';
import { WebhookReceiver } from '../support/webhook-receiver';
import { call, eventually, PEOPLE_FIELDS, reviewApi, startService, upload, waitForRun, type Service } from '../support/service-harness';

const FAST = { WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_DELAYS_MS: '60', WEBHOOK_MAX_ATTEMPTS: '2' };

/** A run of the organization, its default webhook URL set to `url` in the console, approved: its webhook is on its way. */
async function approvedRunNotifying(
  svc: Service,
  org: Awaited<ReturnType<typeof organizationWithOwner>>['org'],
  owner: Awaited<ReturnType<typeof organizationWithOwner>>['owner'],
  url: string,
): Promise<string> {
  const schema = (await owner.post('/schemas', { name: 'People', fields: PEOPLE_FIELDS })).body.data.id;
  expect((await owner.put('/webhook', { url })).body.data).toEqual({ url });
  const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
    token: org.api_key,
    body: { schema_id: schema, filename: 'p.csv' },
  });
  await upload(created.body, 'E-mail,Age\nada@example.com,36\n');
  const ready = await waitForRun(svc, org.api_key, created.body.id, (r) => r.review_state === 'active');
  expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
  return created.body.id as string;
}

/** The console's webhook side as an owner uses it: settings, the secret, a failed delivery sent again, a test event. */
describe('console: webhooks', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService(FAST);
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.stop();
  });

  it('finds a failed delivery, sends it again (same X-Service-Id, the rotated secret), and the audit log says who', async () => {
    const { org, owner } = await organizationWithOwner(svc, 'Hooks');
    const url = `${receiver.url}/hooks?case=console`;
    receiver.fallback = 'error';
    const runId = await approvedRunNotifying(svc, org, owner, url);
    await waitForRun(svc, org.api_key, runId, (r) => r.notification_status === 'failed');

    // The organization's log shows the failures; the run's page lists its attempts.
    const failed = await eventually(
      () => owner.get('/deliveries?outcome=failed'),
      (res) => res.body.meta?.total >= 2,
    );
    expect(failed.body.data[0]).toMatchObject({ run_id: runId, status_code: 500, outcome: 'failed', url });
    // The page links keep the filter: the next page is of failures too.
    expect(failed.body.links.first).toBe('/console/api/deliveries?outcome=failed&page=1&per_page=20');
    // A filter sent as a list, or empty, is refused, not ignored (the list would come unfiltered).
    for (const query of [
      'outcome[]=failed',
      'outcome[0]=failed',
      'event[]=transformation.failed',
      'outcome=failed&outcome=delivered',
      'outcome=',
      'event=',
    ]) {
      const listed = await owner.get(`/deliveries?${query}`);
      expect([query, listed.status, Object.keys(listed.body.error?.fields ?? {})]).toEqual([query, 422, [query.split(/[[=]/)[0]]]);
    }
    const attempts = (await owner.get(`/runs/${runId}/deliveries`)).body.data;
    expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual([2, 1]);
    // Given up: no attempt is planned, so it can be sent again.
    expect(attempts.map((a: { delivery_next_attempt_at: string | null }) => a.delivery_next_attempt_at)).toEqual([null, null]);
    const timeline = (await owner.get(`/runs/${runId}/timeline`)).body.data.map((e: { type: string }) => e.type);
    expect(timeline).toEqual(
      expect.arrayContaining(['RunCreated', 'SourceUploaded', 'ReviewPrepared', 'ReviewApproved', 'OutputProduced', 'WebhookAttempted']),
    );

    // Rotate, then re-send: the receiver gets the same run id with the new secret.
    const secret = (await owner.post('/webhook/secret/rotate')).body.data.secret;
    receiver.fallback = 'ok';
    const before = receiver.for(runId).length;
    const resent = await owner.post(`/runs/${runId}/deliveries/${attempts[0].delivery_id}/resend`);
    expect(resent).toMatchObject({ status: 202, body: { data: { delivery_id: attempts[0].delivery_id, status: 'pending' } } });
    const got = await eventually(
      async () => receiver.for(runId),
      (list) => list.length > before,
    );
    const last = got[got.length - 1];
    expect(last.headers['x-service-id']).toBe(runId);
    expect(last.headers['x-service-webhook-secret']).toBe(secret);
    const delivered = await eventually(
      () => owner.get(`/runs/${runId}/deliveries`),
      (res) => res.body.data[0]?.outcome === 'delivered',
    );
    expect(delivered.body.data[0]).toMatchObject({ attempt: 3, status_code: 200 });
    // Each attempt says whether it is its delivery's newest (where "Send again" goes), also on a page without that one.
    const newestOf = async (query: string) =>
      (await owner.get(`/runs/${runId}/deliveries?${query}`)).body.data.map((a: { attempt: number; delivery_newest: boolean }) => [
        a.attempt,
        a.delivery_newest,
      ]);
    expect(await newestOf('page=1&per_page=2')).toEqual([
      [3, true],
      [2, false],
    ]);
    expect(await newestOf('page=2&per_page=2')).toEqual([[1, false]]);

    const audit = (await owner.get('/audit')).body.data;
    expect(audit[0]).toMatchObject({
      type: 'DeliveryResent',
      actor: { member_id: owner.session!.member.id },
      details: { run_id: runId, delivery_id: attempts[0].delivery_id, event: 'transformation.finished' },
    });
    expect(audit.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['WebhookSecretRotated', 'WebhookUrlChanged', 'SchemaSaved']),
    );
  });

  it('gives a viewer no answer a receiver echoed back (the review link acts, the secret may be in it in any form); owners see it whole', async () => {
    const { org, owner } = await organizationWithOwner(svc, 'Echo');
    receiver.fallback = 'echo';
    // Whatever happens here, the receiver answers as the other cases expect afterwards.
    try {
      const runId = await approvedRunNotifying(svc, org, owner, `${receiver.url}/hooks?case=echo`);
      const done = await waitForRun(svc, org.api_key, runId, (r) => r.notification_status === 'delivered');
      const signature = new URL(done.review_url).searchParams.get('signature')!;
      const invitation = (await owner.post('/invitations', { email: 'echo-viewer@example.com', role: 'viewer' })).body.data;
      const viewer = new ConsoleClient(svc.baseUrl);
      expect((await viewer.accept(invitation.url, 'V', PASSWORD)).status).toBe(200);
      for (const path of [`/runs/${runId}/deliveries`, '/deliveries']) {
        const owners = (await owner.get(path)).body.data[0];
        const viewers = (await viewer.get(path)).body.data[0];
        expect({ path, owner: (owners.response_excerpt as string).includes(signature) }).toEqual({ path, owner: true });
        expect({ path, viewer: viewers }).toMatchObject({ path, viewer: { response_excerpt: null, response_excerpt_withheld: true } });
        expect(JSON.stringify(viewers)).not.toContain(signature);
        expect(viewers).toMatchObject({ status_code: owners.status_code, outcome: owners.outcome });
      }
    } finally {
      receiver.fallback = 'ok';
    }
  });

  it('sends a signed test event to the default URL and says what the receiver answered', async () => {
    const { owner } = await organizationWithOwner(svc, 'Test event');
    expect(await owner.post('/webhook/test')).toMatchObject({ status: 422, body: { error: { fields: { url: expect.any(Array) } } } });
    // A url of the wrong type is refused, not read as "the default URL".
    expect(await owner.post('/webhook/test', { url: 5 })).toMatchObject({
      status: 422,
      body: { error: { fields: { url: [expect.stringMatching(/must be a string/)] } } },
    });
    await owner.put('/webhook', { url: `${receiver.url}/hooks?case=test-event` });
    receiver.fallback = 'ok';
    // A body that is not an object sends nothing, as on every other route.
    for (const body of [null, [1, 2], 'x', 42]) {
      expect({
        body,
        answer: await owner.request('POST', '/webhook/test', {
          raw: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
      }).toMatchObject({
        body,
        answer: { status: 422, body: { error: { fields: { body: ['The request body must be a JSON object.'] } } } },
      });
    }
    const res = await owner.post('/webhook/test');
    expect(res.body.data).toMatchObject({ delivered: true, status_code: 200, error: null, duration_ms: expect.any(Number) });
    const secret = (await owner.post('/webhook/secret/reveal')).body.data.secret;
    const received = receiver.received.filter((r) => r.path.includes('case=test-event'));
    expect(received).toHaveLength(1);
    expect(received[0].headers['x-service-webhook-secret']).toBe(secret);
    expect(JSON.parse(received[0].body)).toMatchObject({ event: 'webhook.test', test: true });
  });
});

describe('console: a delivery with a retry planned', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    // The first attempt fails, the next is ten minutes away: the delivery stays pending through the test.
    svc = await startService({ WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_DELAYS_MS: '600000', WEBHOOK_MAX_ATTEMPTS: '3' });
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.stop();
  });

  it('says when the next attempt is due, and is not sent again meanwhile (409 delivery_pending)', async () => {
    const { org, owner } = await organizationWithOwner(svc, 'Retrying');
    receiver.fallback = 'error';
    const runId = await approvedRunNotifying(svc, org, owner, `${receiver.url}/hooks?case=planned`);

    const listed = await eventually(
      () => owner.get(`/runs/${runId}/deliveries`),
      (res) => res.body.data?.length === 1,
    );
    const [attempt] = listed.body.data;
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'failed', delivery_next_attempt_at: expect.any(String) });
    const due = Date.parse(attempt.delivery_next_attempt_at) - Date.now();
    expect(due).toBeGreaterThan(9 * 60_000);
    expect(due).toBeLessThanOrEqual(10 * 60_000);
    expect(await owner.post(`/runs/${runId}/deliveries/${attempt.delivery_id}/resend`)).toMatchObject({
      status: 409,
      body: { error: { code: 'delivery_pending' } },
    });
  });
});
