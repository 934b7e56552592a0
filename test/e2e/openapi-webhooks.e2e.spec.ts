import SwaggerParser from '@apidevtools/swagger-parser';
import { openApiConformance, type OpenApiConformance } from '../support/openapi-conformance';
import { WebhookReceiver } from '../support/webhook-receiver';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * The webhooks the service sends are in its public OpenAPI document (`webhooks`, OpenAPI 3.1), and each one really
 * sent matches it: its headers and its body, objects closed, so a member the notifier sends and the document omits
 * (or the other way round) fails here (apps/gateway/src/openapi/webhooks-document.ts).
 */
describe('the webhooks in the public OpenAPI document', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let doc: OpenApiConformance;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService();
    org = await setupOrganization(svc);
    doc = await openApiConformance(svc.baseUrl, '/openapi.json');
  });
  afterAll(async () => {
    await svc.stop();
    await receiver.stop();
  });

  const createRun = async (filename: string) => {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename, notify_url: `${receiver.url}/hooks`, metadata: { batch: 7, tags: ['a'] } },
    });
    expect(run.status).toBe(201);
    return run.body;
  };
  const deliveredOf = async (runId: string) => {
    const [delivery] = await receiver.waitFor(runId, 1);
    return delivery;
  };

  it('documents one POST for each event the contract names, with the payload as a component, valid OpenAPI 3.1', async () => {
    expect(Object.keys(doc.document.webhooks).sort()).toEqual([
      'transformation.failed',
      'transformation.finished',
      'transformation.review.canceled',
    ]);
    const dereferenced: any = await SwaggerParser.validate(structuredClone(doc.document));
    const finished = dereferenced.webhooks['transformation.finished'].post;
    expect(finished.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['event', 'id', 'status', 'stage', 'schema_id', 'metadata', 'review_url', 'download_url', 'error']),
    );
    expect(finished.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['X-Service-Event', 'X-Service-Id', 'X-Service-Webhook-Secret', 'webhook-id', 'webhook-signature']),
    );
    expect(doc.schemaProblems()).toEqual([]);
  });

  it('a finished, a failed and a canceled run each send a webhook that matches the document', async () => {
    const finished = await createRun('people.csv');
    expect((await upload(finished, 'email,first_name,age\nann@x.io,Ann,34\n')).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, finished.id, (r) => r.review_state === 'active');
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);

    const failed = await createRun('empty.csv');
    expect((await upload(failed, '')).status).toBe(200);

    const canceled = await createRun('people.csv');
    expect((await upload(canceled, 'email,first_name,age\nbo@x.io,Bo,40\n')).status).toBe(200);
    const open = await waitForRun(svc, org.apiKey, canceled.id, (r) => r.review_state === 'active');
    expect((await call(reviewApi(open.review_url).at('cancel'), { method: 'POST', body: {} })).status).toBe(200);

    for (const [run, event] of [
      [finished, 'transformation.finished'],
      [failed, 'transformation.failed'],
      [canceled, 'transformation.review.canceled'],
    ] as const) {
      const delivery = await deliveredOf(run.id);
      expect(delivery.headers['x-service-event']).toBe(event);
      expect(doc.webhookProblems(event, delivery.headers, delivery.body)).toEqual([]);
    }
    // The check could fail: a member the document does not name, or one missing, is found.
    const sent = await deliveredOf(finished.id);
    const extra = JSON.stringify({ ...JSON.parse(sent.body), surprise: 1 });
    expect(doc.webhookProblems('transformation.finished', sent.headers, extra).join()).toMatch(/surprise/);
    const { id: _id, ...lacking } = JSON.parse(sent.body);
    expect(doc.webhookProblems('transformation.finished', sent.headers, JSON.stringify(lacking)).join()).toMatch(/id/);
    expect(doc.webhookProblems('transformation.finished', { ...sent.headers, 'webhook-signature': undefined }, sent.body)).toEqual([
      'webhook transformation.finished: header webhook-signature is missing',
    ]);
  });
});
