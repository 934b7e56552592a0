import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, call, freePort, reviewApi, untilAnswers, upload, waitForRun } from '../support/service-harness';
import { listenOnLoopback } from '../support/suite-resources';
import { spawnBuiltApp } from '../support/built-service';
import { fromOtlpJson, httpMethod, httpPath, peerPort, treeProblems, type SeenSpan } from '../support/trace-tree';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Tracing across processes: the built gateway app (the HTTP API) and the built standalone
 * app (every consumer group; its own API unused) share DATA_DIR, so events cross from one
 * process to the other through the SQLite event store, trace context in their metadata.
 * Both export OTLP/JSON to a receiver on loopback, configured by the standard variables
 * only. One run is one connected trace over both services.
 */
const ROOT = join(__dirname, '..', '..');

describe('tracing: one run, one trace (two processes, OTLP/JSON)', () => {
  const spans: SeenSpan[] = [];
  let otlpUrl: string;
  let receiver: WebhookReceiver;
  let gatewayPort: number;
  let workersPort: number;
  let dataDir: string;
  const children = new Map<string, ChildProcess>();
  const base = () => `http://127.0.0.1:${gatewayPort}`;

  function start(app: 'gateway' | 'standalone', port: number, batchDelayMs: number): void {
    const { OTEL_SERVICE_NAME: _name, OTEL_RESOURCE_ATTRIBUTES: _attributes, ...env } = process.env;
    children.set(
      app,
      spawnBuiltApp(app, {
        port,
        dataDir,
        publicBaseUrl: base(),
        inherited: env,
        env: {
          WEBHOOK_POLL_MS: '25',
          WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1,::1',
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl,
          OTEL_BSP_SCHEDULE_DELAY: String(batchDelayMs),
        },
      }),
    );
  }

  beforeAll(async () => {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    const otlp = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/traces')
          spans.push(...fromOtlpJson(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    otlpUrl = `${(await listenOnLoopback(otlp, 'OTLP receiver')).baseUrl}/v1/traces`;
    receiver = new WebhookReceiver();
    await receiver.start();
    gatewayPort = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-traced-'));
    // The gateway creates the shared files first; the other process then opens them.
    start('gateway', gatewayPort, 2000);
    await untilAnswers(`${base()}/openapi.json`);
    workersPort = await freePort();
    start('standalone', workersPort, 100);
    await untilAnswers(`http://127.0.0.1:${workersPort}/openapi.json`);
  }, 180_000);

  afterAll(async () => {
    await receiver?.stop();
  });

  it('connects the gateway request and the other process consumers and webhook in one tree', async () => {
    const org = await call(`${base()}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Traced' } });
    const apiKey = org.body.api_key;
    const schema = await call(`${base()}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'People', fields: { email: { description: 'Email', data_type: 'email', is_required: true } } },
    });
    const created = await call(`${base()}/v1/transformations/file`, {
      token: apiKey,
      body: { schema_id: schema.body.data.id, filename: 'p.csv', notify_url: `${receiver.url}/hooks` },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    expect((await upload(created.body, 'E-mail\nada@example.com\n')).status).toBe(200);
    const ready = await waitForRun({ baseUrl: base() }, apiKey, id, (r) => r.review_state === 'active', 30_000);
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    await waitForRun({ baseUrl: base() }, apiKey, id, (r) => r.stage === 'final' && r.notification_status === 'delivered', 30_000);
    expect(receiver.for(id)).toHaveLength(1);

    const consumersOf = () => spans.filter((s) => s.kind === 'consumer' && s.attributes['run.id'] === id);
    const creates = () =>
      spans.filter((s) => s.kind === 'server' && httpMethod(s) === 'POST' && httpPath(s) === '/v1/transformations/file');
    const webhookPort = Number(new URL(receiver.url).port);
    const webhooks = () => spans.filter((s) => s.kind === 'client' && peerPort(s) === webhookPort);
    // Batches arrive every 2 s from the gateway, every 100 ms from the other: wait for the whole tree.
    const deadline = Date.now() + 10_000;
    const complete = () =>
      creates().length === 1 &&
      webhooks().length === 1 &&
      consumersOf().some((s) => s.name === 'projector WebhookAttempted') &&
      treeProblems(spans, creates()[0]).length === 0;
    while (!complete() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const [create] = creates();
    expect(create).toMatchObject({ service: 'gateway' });
    const trace = create.traceId;
    expect(treeProblems(spans, create)).toEqual([]);
    const consumers = consumersOf();
    expect(consumers.filter((s) => s.traceId !== trace)).toEqual([]);
    expect(new Set(consumers.map((s) => s.service))).toEqual(new Set(['standalone']));
    expect([...new Set(consumers.map((s) => String(s.attributes['messaging.consumer.group.name'])))].sort()).toEqual([
      'ingestion',
      'mapping',
      'notifier',
      'output',
      'projector',
    ]);
    // The hop between the processes: the other process's handling of RunCreated is a child of the gateway's request.
    expect(consumers.filter((s) => s.name.endsWith(' RunCreated')).map((s) => s.parentSpanId)).toEqual([create.spanId, create.spanId]);
    const [webhook] = webhooks();
    expect(webhook).toMatchObject({ traceId: trace, service: 'standalone' });
    // The approval came to the gateway in a request of its own; the run's trace continues from it (linked).
    const approval = consumers.find((s) => s.name === 'output ReviewApproved')!;
    const approvalParent = spans.find((s) => s.spanId === approval.parentSpanId)!;
    expect(approvalParent).toMatchObject({ name: 'run ApproveReview', service: 'gateway', traceId: trace });
    expect(approvalParent.links).toHaveLength(1);
  }, 120_000);

  it('each process stops on SIGTERM: the application closes, tracing exports what it holds, the signal ends the process', async () => {
    for (const [app, child] of children) {
      // A request whose span only the shutdown can export (the gateway batches every 2 s).
      const port = app === 'gateway' ? gatewayPort : workersPort;
      expect((await fetch(`http://127.0.0.1:${port}/v1/schemas?probe=${app}`)).status).toBe(401);
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.once('exit', (code, signal) => resolve(signal ?? code)),
      );
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('still running'), 15_000)))]);
      clearTimeout(timer);
      expect({ app, outcome }).toEqual({ app, outcome: 'SIGTERM' });
      if (app === 'gateway') expect(spans.filter((s) => s.service === 'gateway' && httpPath(s) === '/v1/schemas')).toHaveLength(1);
    }
  }, 40_000);
});
