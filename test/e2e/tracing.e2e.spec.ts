import { startInMemoryTracing, type InMemoryTracing } from '@app/tracing/testing/in-memory-tracing';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import {
  ADMIN_TOKEN,
  call,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';
import { fromReadable, httpMethod, httpPath, peerPort, treeProblems, type SeenSpan } from '../support/trace-tree';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Tracing in one process (every app, embedded adapters), spans kept in memory: one run is
 * one trace, from the HTTP request that created it through every consumer group's handling
 * of its events to the AI vendor call and the webhook; the later requests about the run
 * (upload, approval) have traces of their own, linked from the run's.
 */
describe('tracing: one run, one trace (one process)', () => {
  let tracing: InMemoryTracing;
  let svc: Service;
  let vendor: FakeVendor;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    tracing = startInMemoryTracing('standalone');
    vendor = new FakeVendor();
    await vendor.start();
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
    await vendor?.stop();
    await receiver?.stop();
    await tracing?.stop();
  });

  const spans = (): SeenSpan[] => tracing.spans().map(fromReadable);

  it('connects the create request, every consumer group, the vendor call and the webhook in one tree', async () => {
    const org = await setupOrganization(svc);
    const provider = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/providers`, {
      token: ADMIN_TOKEN,
      body: { name: 'Fake', provider: 'openai', model: 'gpt-test', api_key: OPENAI_KEY, base_url: `${vendor.baseUrl}/v1` },
    });
    expect(provider.status).toBe(201);
    vendor.answer = (schema) => (schema === 'column_mapping' ? { mapping: { email: 'E-mail', age: 'Age' } } : {});

    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv', provider_id: provider.body.data.id, notify_url: `${receiver.url}/hooks` },
    });
    expect(created.status).toBe(201);
    const runId: string = created.body.id;
    expect((await upload(created.body, 'E-mail,Age\nada@example.com,36\n')).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, runId, (r) => r.review_state === 'active' || r.status === 'failed');
    expect(ready.review_state).toBe('active');
    expect(vendor.requests).toHaveLength(1);
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    await waitForRun(svc, org.apiKey, runId, (r) => r.stage === 'final' && r.notification_status === 'delivered');
    expect(receiver.for(runId)).toHaveLength(1);

    const servers = (method: string, path: (p: string) => boolean) =>
      spans().filter((s) => s.kind === 'server' && httpMethod(s) === method && path(httpPath(s)));
    const [create] = servers('POST', (p) => p === '/v1/transformations/file');
    expect(create).toBeDefined();
    const trace = create.traceId;

    // The last spans end just after the run is shown as delivered (the attempt's own span, its projection).
    const deadline = Date.now() + 5000;
    while (treeProblems(spans(), create).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const all = spans();
    expect(treeProblems(all, create)).toEqual([]);

    // Every consumer group handled the run's events in the run's trace, and in no other.
    const consumers = all.filter((s) => s.kind === 'consumer' && s.attributes['run.id'] === runId);
    const groups = (ss: SeenSpan[]) => [...new Set(ss.map((s) => String(s.attributes['messaging.consumer.group.name'])))].sort();
    expect(groups(consumers)).toEqual(['ingestion', 'mapping', 'notifier', 'output', 'projector']);
    expect(consumers.filter((s) => s.traceId !== trace)).toEqual([]);
    for (const type of ['RunCreated', 'SourceUploaded', 'SourceParsed', 'ReviewPrepared', 'ReviewApproved', 'OutputProduced']) {
      expect({ type, projected: consumers.some((s) => s.name === `projector ${type}`) }).toEqual({ type, projected: true });
    }
    expect(consumers.find((s) => s.name === 'mapping SourceParsed')?.attributes).toMatchObject({
      'run.event.type': 'SourceParsed',
      'run.stream': `run-${runId}`,
      'messaging.destination.name': 'transformation.run.events.v1',
      'messaging.operation.type': 'process',
    });

    // The outgoing calls: the vendor's mapping suggestion and the webhook, under the run's spans.
    const vendorPort = Number(new URL(vendor.baseUrl).port);
    const receiverPort = Number(new URL(receiver.url).port);
    const clients = all.filter((s) => s.kind === 'client' && s.traceId === trace);
    expect(clients.filter((s) => peerPort(s) === vendorPort)).toHaveLength(1);
    const [webhook] = clients.filter((s) => peerPort(s) === receiverPort);
    expect(webhook).toBeDefined();
    expect(all.find((s) => s.spanId === webhook.parentSpanId)?.name).toBe('notifier webhook transformation.finished');
    // The receiver got the trace context with the call (the W3C traceparent header).
    expect(receiver.for(runId)[0].headers.traceparent).toBe(`00-${trace}-${webhook.spanId}-01`);

    // The upload and the approval are requests of their own: their traces are linked from the run's.
    const uploadUrl = new URL(created.body.upload.url as string);
    const approveUrl = new URL(reviewApi(ready.review_url).at('approve'));
    for (const [method, path] of [
      [created.body.upload.method as string, uploadUrl.pathname],
      ['POST', approveUrl.pathname],
    ]) {
      const [request] = servers(method, (p) => p === path);
      expect(request).toBeDefined();
      expect(request.traceId).not.toBe(trace);
      const linked = all.filter((s) => s.traceId === trace && s.links.some((l) => l.spanId === request.spanId));
      expect({ path, linkedFrom: linked.map((s) => s.name) }).toEqual({ path, linkedFrom: [expect.stringMatching(/^run /)] });
    }
  }, 60_000);
});
