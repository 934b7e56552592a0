import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { listenOnLoopback } from '../support/suite-resources';
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

type Behaviour = 'answer' | 'hang' | 'garbage';

/**
 * A customer's validation hook on loopback: verifies each request's Standard Webhooks signature
 * with the organization's secret, then answers per `behaviour`: findings for the rows it is
 * sent (an e-mail on a blocked domain, with a correction; an age under 18, without one), no
 * answer at all, or an answer that is not one.
 */
class ValidationHook {
  behaviour: Behaviour = 'answer';
  secret = '';
  readonly received: { headers: IncomingHttpHeaders; body: any; verified: boolean }[] = [];
  url = '';
  private server!: Server;
  private close: () => Promise<void> = async () => undefined;

  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let verified = true;
        try {
          new Webhook(this.secret).verify(raw, {
            'webhook-id': String(req.headers['webhook-id']),
            'webhook-timestamp': String(req.headers['webhook-timestamp']),
            'webhook-signature': String(req.headers['webhook-signature']),
          });
        } catch {
          verified = false;
        }
        const body = JSON.parse(raw);
        this.received.push({ headers: req.headers, body, verified });
        if (!verified) return void res.writeHead(401).end();
        if (this.behaviour === 'hang') return;
        if (this.behaviour === 'garbage')
          return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":"all good"}');
        const results = [];
        for (const { row, values } of body.rows as { row: number; values: Record<string, unknown> }[]) {
          if (typeof values.email === 'string' && values.email.endsWith('@blocked.example'))
            results.push({
              row,
              field: 'email',
              message: 'This domain is blocked',
              corrected_value: values.email.replace('@blocked.example', '@ok.example'),
            });
          if (typeof values.age === 'number' && values.age < 18) results.push({ row, field: 'age', message: 'Customers must be adults' });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      });
    });
    const listening = await listenOnLoopback(this.server, 'validation hook');
    this.url = `${listening.baseUrl}/validate`;
    this.close = listening.close;
  }

  stop() {
    this.server.closeAllConnections();
    return this.close();
  }
}

/**
 * The batches a hook received, each once: a batch whose answer came late (the suite's hook timeout is 300 ms, which a
 * loaded machine can pass) is sent again with the same id, as the receiver is told to expect.
 */
function distinctBatches<R extends { headers: Record<string, unknown> }>(received: R[]): R[] {
  const seen = new Set<unknown>();
  return received.filter((r) => !seen.has(r.headers['webhook-id']) && seen.add(r.headers['webhook-id']));
}

/**
 * Asks for the count until it is counted and the customer's checks are no longer running (the page polls the same
 * way). A count answered `superseded` (a newer mapping's count began meanwhile, e.g. from a request still in flight)
 * is asked for again, as the page does.
 */
async function settledCount(review: ReturnType<typeof reviewApi>, seconds = 20) {
  for (const deadline = Date.now() + seconds * 1000; ;) {
    const count = await review.problems();
    expect(count.status).toBe(200);
    if (count.body.status === 'counted' && count.body.customer_checks?.status !== 'running') return count.body;
    if (Date.now() > deadline) throw new Error(`the checks never settled: ${JSON.stringify(count.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the customer's validation hook", () => {
  let svc: Service;
  let hook: ValidationHook;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let schemaId: string;

  const FIELDS = {
    email: { description: 'E-mail', data_type: 'email', is_required: true },
    age: { description: 'Age', data_type: 'integer', is_required: false },
  };
  // Row 1: clean; 2: a blocked domain (the hook's); 3: no e-mail (ours); 4: a minor (the hook's) with a bad e-mail (ours); 5: clean.
  const CSV = ['E-mail,Age', 'a@x.org,30', 'b@blocked.example,31', ',32', 'd@x,12', 'e@x.org,40'].join('\n');
  const MAPPING = { email: 'E-mail', age: 'Age' };

  beforeAll(async () => {
    hook = new ValidationHook();
    await hook.start();
    // A hook that never answers fails the checks after two attempts of 2 s: long enough that a preview answered
    // meanwhile shows the checks still running (below), however slow the machine; two rows a batch.
    svc = await startService({
      VALIDATION_HOOK_TIMEOUT_MS: '2000',
      VALIDATION_HOOK_ATTEMPTS: '2',
      VALIDATION_HOOK_RETRY_BASE_MS: '20',
      VALIDATION_HOOK_BATCH_ROWS: '2',
    });
    org = await setupOrganization(svc, FIELDS);
    const rotated = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/webhook/rotate-secret`, {
      token: ADMIN_TOKEN,
      body: {},
    });
    expect(rotated.status).toBe(200);
    hook.secret = rotated.body.webhook_secret;
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Checked people', fields: FIELDS, validation_url: hook.url },
    });
    expect(schema.status).toBe(201);
    expect(schema.body.data.validation_url).toBe(hook.url);
    schemaId = schema.body.data.id;
  });
  afterAll(async () => {
    await svc.stop();
    await hook.stop();
  });

  async function readyReview() {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schemaId, filename: 'people.csv' },
    });
    expect(run.status).toBe(201);
    expect((await upload(run.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    return { runId: run.body.id as string, review };
  }

  it('sends the mapped rows signed, and its findings join the counts, the rows and the preview; a correction accepted is in the output', async () => {
    hook.behaviour = 'answer';
    const { runId, review } = await readyReview();
    const count = await settledCount(review);
    expect(count.customer_checks).toEqual({ status: 'ran', rows_checked: 5, total_rows: 5, reason: null, detail: null });
    // Ours: rows 3 and 4 (e-mail); the hook's: rows 2 (e-mail) and 4 (age). Rows with any: 2, 3, 4.
    expect(count).toMatchObject({
      status: 'counted',
      rows_with_problems: 3,
      problems_by_field: { email: 3, age: 1 },
      rows_by_kind: { required: 1, type: 1, customer: 2 },
      problems_by_field_and_kind: { email: { customer: 1 }, age: { customer: 1 } },
    });

    const sent = distinctBatches(hook.received.filter((r) => r.body.run_id === runId));
    expect(hook.received.every((r) => r.verified)).toBe(true);
    expect(sent.every((r) => r.headers['x-service-event'] === 'review.validate')).toBe(true);
    // Three batches of at most two rows, values as the JSON output holds them.
    expect(sent.map((r) => r.body.rows.map((row: { row: number }) => row.row)).sort()).toEqual([[1, 2], [3, 4], [5]]);
    expect(sent.flatMap((r) => r.body.rows).find((row: { row: number }) => row.row === 4)).toEqual({
      row: 4,
      values: { email: 'd@x', age: 12 },
    });
    expect(sent[0].body).toMatchObject({ type: 'review.validate', schema_id: schemaId });

    const customerRows = await review.problemRows({ kind: 'customer' });
    expect(customerRows.status).toBe(200);
    expect(customerRows.body.matching).toBe(2);
    expect(customerRows.body.rows.map((r: { row: number }) => r.row)).toEqual([2, 4]);
    expect(customerRows.body.rows[0].cells.email).toEqual({
      value: 'b@blocked.example',
      problem: 'customer',
      customer: { message: 'This domain is blocked', corrected_value: 'b@ok.example', before: 'b@blocked.example' },
    });
    // A cell with our problem keeps its kind and carries the hook's message too.
    expect(customerRows.body.rows[1].cells.age).toMatchObject({
      problem: 'customer',
      customer: { message: 'Customers must be adults', corrected_value: null },
    });
    const anyRows = await review.problemRows({});
    expect(anyRows.body).toMatchObject({ matching: 3 });
    expect(anyRows.body.rows.map((r: { row: number }) => r.row)).toEqual([2, 3, 4]);
    const emailRows = await review.problemRows({ field: 'email', per_page: 1, page: 3 });
    expect(emailRows.body).toMatchObject({ matching: 3, rows: [{ row: 4 }] });

    const preview = (await review.preview()).body;
    expect(preview.customer_checks.status).toBe('ran');
    expect(preview.rows[1].email.customer.message).toBe('This domain is blocked');
    expect(preview.rows[0].email).toEqual({ value: 'a@x.org', problem: null });

    // Accepting the correction is a cell fix of the value the hook saw; the hook is asked again about that batch only.
    const batchesBefore = distinctBatches(hook.received).length;
    const { before, corrected_value } = customerRows.body.rows[0].cells.email.customer;
    expect((await review.fix('email', { kind: 'cell', row: 2, before, after: corrected_value })).status).toBe(200);
    const after = await settledCount(review);
    expect(after).toMatchObject({ rows_with_problems: 2, rows_by_kind: { customer: 1 } });
    expect(distinctBatches(hook.received).length - batchesBefore).toBe(1);

    expect((await review.approve(undefined, 'deliver')).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    const output = await (await fetch(done.download_url)).json();
    expect(output[1]).toEqual({ email: 'b@ok.example', age: 31 });
  });

  it('is not asked about rows the reviewer left out; the batches stay where they were, and the status covers every row', async () => {
    hook.behaviour = 'answer';
    const { runId, review } = await readyReview();
    await settledCount(review);
    // Row 2 (the hook's blocked domain) left out: batch 1 now holds row 1 alone.
    const left = await call(review.at('fixes'), { method: 'POST', body: { fix: { kind: 'leave_out', row: 2 } } });
    expect(left.status).toBe(200);
    const before = hook.received.length;
    const count = await settledCount(review);
    expect(count.customer_checks).toEqual({ status: 'ran', rows_checked: 5, total_rows: 5, reason: null, detail: null });
    expect(count).toMatchObject({ rows_with_problems: 2, rows_by_kind: { customer: 1 } });
    const sent = distinctBatches(hook.received.slice(before).filter((r) => r.body.run_id === runId));
    // Only the batch that changed is asked again (the others' answers are kept): rows 3 to 5 did not move into it.
    expect(sent.map((r) => r.body.rows.map((row: { row: number }) => row.row))).toEqual([[1]]);
  });

  it.each([
    ['hang', 'timeout'],
    ['garbage', 'garbage'],
  ] as const)('a hook that answers %s: the review works, the status says why, and approval is possible', async (behaviour, reason) => {
    hook.behaviour = behaviour;
    const { runId, review } = await readyReview();
    const preview = await review.preview();
    expect(preview.status).toBe(200);
    // The preview never waits for the hook: a hanging one is still being waited for (4 s: two attempts of 2 s)
    // when the preview answers. A hook that answers garbage at once may already have failed by then.
    if (behaviour === 'hang') expect(preview.body.customer_checks.status).toBe('running');
    const count = await settledCount(review);
    expect(count.customer_checks).toMatchObject({ status: 'failed', reason });
    expect(count.customer_checks.detail).toEqual(expect.any(String));
    // Our own problems are counted as ever; the customer's kind has none.
    expect(count).toMatchObject({ status: 'counted', rows_with_problems: 2, rows_by_kind: { customer: 0 } });
    expect((await review.problemRows({})).body.rows.map((r: { row: number }) => r.row)).toEqual([3, 4]);
    expect((await review.approve(undefined, 'deliver')).status).toBe(200);
    await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
  });

  it("joins the hook's findings with unique-value problems as the count sees them (the duplicates pass)", async () => {
    hook.behaviour = 'answer';
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Unique people', fields: { ...FIELDS, email: { ...FIELDS.email, unique: true } }, validation_url: hook.url },
    });
    expect(schema.status).toBe(201);
    // Rows 1 and 3 repeat an e-mail (ours: unique); row 2 is the hook's (a blocked domain); row 4 is a minor (the hook's).
    const csv = ['E-mail,Age', 'a@x.org,30', 'b@blocked.example,31', 'a@x.org,32', 'd@x.org,12', 'e@x.org,40'].join('\n');
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schema.body.data.id, filename: 'people.csv' },
    });
    expect((await upload(run.body, csv)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    const count = await settledCount(review);
    // Said first, so a run whose checks did not run names why (seen once in a full run: customer 0, cause unknown).
    expect(count.customer_checks).toMatchObject({ status: 'ran' });
    expect(count).toMatchObject({
      rows_with_problems: 4,
      problems_by_field: { email: 3, age: 1 },
      rows_by_kind: { unique: 2, customer: 2 },
    });
    const all = await review.problemRows({ per_page: 2, page: 2 });
    expect(all.body).toMatchObject({ matching: 4, rows: [{ row: 3 }, { row: 4 }] });
    expect(all.body.rows[0].cells.email).toMatchObject({ problem: 'unique' });
    const unique = await review.problemRows({ kind: 'unique' });
    expect(unique.body.rows.map((r: { row: number }) => r.row)).toEqual([1, 3]);
  });

  it('a schema whose validation_url is not a public http(s) URL is refused with a 422', async () => {
    for (const url of ['ftp://example.com/hook', 'http://10.0.0.7/validate', 'http://localhost/validate', 'not a url']) {
      const res = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
        token: ADMIN_TOKEN,
        body: { name: 'Bad hook', fields: FIELDS, validation_url: url },
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.error.fields)).toEqual(['validation_url']);
    }
  });
});

describe("the customer's validation hook on a file larger than the rows checked up front", () => {
  const FIELDS = {
    email: { description: 'E-mail', data_type: 'email', is_required: true },
    age: { description: 'Age', data_type: 'integer', is_required: false },
  };
  const MAPPING = { email: 'E-mail', age: 'Age' };
  // 10,050 rows, past the default VALIDATION_HOOK_MAX_ROWS (10,000). The hook's: row 5 (a blocked domain), row 10,040 (a
  // blocked domain, with an age that is ours: not an integer) and row 10,045 (a minor: the hook's alone).
  const TOTAL = 10_050;
  const CSV = [
    'E-mail,Age',
    ...Array.from({ length: TOTAL }, (_, i) => {
      const row = i + 1;
      if (row === 5) return 'five@blocked.example,30';
      if (row === 10_040) return 'late@blocked.example,old';
      if (row === 10_045) return 'young@x.org,12';
      return `p${row}@x.org,${20 + (row % 50)}`;
    }),
  ].join('\n');

  let dataDir: string;
  let svc: Service;
  let hook: ValidationHook;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let schemaId: string;

  beforeAll(async () => {
    hook = new ValidationHook();
    await hook.start();
    dataDir = mkdtempSync(join(tmpdir(), 'hook-'));
    // The defaults but the address guard's loopback exception (the harness sets it): 10,000 rows up front, 100 a batch.
    svc = await startService({}, dataDir);
    org = await setupOrganization(svc, FIELDS);
    const rotated = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/webhook/rotate-secret`, {
      token: ADMIN_TOKEN,
      body: {},
    });
    hook.secret = rotated.body.webhook_secret;
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Many people', fields: FIELDS, validation_url: hook.url },
    });
    expect(schema.status).toBe(201);
    schemaId = schema.body.data.id;
  });
  afterAll(async () => {
    await svc.stop();
    await hook.stop();
  });

  const previewAt = (review: ReturnType<typeof reviewApi>, offset: number) =>
    call(review.at('preview'), { method: 'POST', body: { offset } });
  const sentFor = (runId: string) => distinctBatches(hook.received.filter((r) => r.body.run_id === runId));
  const rowsOf = (sent: { body: any }[]) => sent.map((r) => r.body.rows.map((row: { row: number }) => row.row));

  it('checks the first 10,000 rows up front; a page past them is sent when opened and shows its findings; the answers outlive a restart', async () => {
    hook.behaviour = 'answer';
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schemaId, filename: 'many.csv' },
    });
    expect((await upload(run.body, CSV)).status).toBe(200);
    const runId = run.body.id as string;
    await waitForRun(svc, org.apiKey, runId, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);

    const count = await settledCount(review, 30);
    // The count says what it covers: 10,000 of 10,050 rows.
    expect(count.customer_checks).toEqual({ status: 'ran', rows_checked: 10_000, total_rows: TOTAL, reason: null, detail: null });
    expect(count).toMatchObject({ rows_by_kind: { customer: 1, type: 1 } });
    const upFront = sentFor(runId);
    expect(upFront).toHaveLength(100);
    expect(Math.max(...rowsOf(upFront).flat())).toBe(10_000);

    // A preview page past the first rows: its batch (rows 10,001 to 10,050) is sent now, and the page shows the hook's finding.
    const late = await previewAt(review, 10_040);
    expect(late.status).toBe(200);
    expect(late.body.customer_checks).toMatchObject({ status: 'ran', rows_checked: 10_000, page: { status: 'ran' } });
    expect(late.body.rows).toHaveLength(10);
    // Row 10,045 is the page's sixth row.
    expect(late.body.rows[4].age).toEqual({
      value: '12',
      problem: 'customer',
      customer: { message: 'Customers must be adults', corrected_value: null, before: '12' },
    });
    expect(late.body.rows[0].email).toEqual({ value: 'p10041@x.org', problem: null });
    expect(rowsOf(sentFor(runId).slice(100))).toEqual([Array.from({ length: 50 }, (_, i) => 10_001 + i)]);
    const badOffset = await previewAt(review, -1);
    expect(badOffset.status).toBe(422);
    expect(Object.keys(badOffset.body.error.fields)).toEqual(['offset']);

    // The rows with problems past the first rows: ours (row 10,040's age), with the hook's finding in its e-mail cell.
    const ours = await review.problemRows({ kind: 'type' });
    expect(ours.body).toMatchObject({ matching: 1, rows: [{ row: 10_040 }] });
    expect(ours.body.rows[0].cells.email).toEqual({
      value: 'late@blocked.example',
      problem: 'customer',
      customer: { message: 'This domain is blocked', corrected_value: 'late@ok.example', before: 'late@blocked.example' },
    });
    expect(ours.body.customer_checks.page).toEqual({ status: 'ran', reason: null, detail: null });
    // Asked before: the page's batch is not sent again.
    expect(sentFor(runId)).toHaveLength(101);

    // A restart: the answers are kept beside the run's files, so the hook is not called again for the same rows.
    await svc.stop();
    svc = await startService({ PORT: String(svc.config.port) }, dataDir);
    const again = await settledCount(review, 30);
    expect(again.customer_checks).toMatchObject({ status: 'ran', rows_checked: 10_000 });
    expect(again).toMatchObject({ rows_by_kind: { customer: 1 } });
    const lateAgain = await previewAt(review, 10_040);
    expect(lateAgain.body.rows[4].age.customer.message).toBe('Customers must be adults');
    expect(sentFor(runId)).toHaveLength(101);

    // An edit changes one batch: only that batch is sent again (the others' answers come from the kept ones).
    expect((await review.fix('email', { kind: 'cell', row: 5, before: 'five@blocked.example', after: 'five@ok.example' })).status).toBe(
      200,
    );
    const fixed = await settledCount(review, 30);
    expect(fixed.customer_checks).toMatchObject({ status: 'ran', rows_checked: 10_000 });
    expect(fixed).toMatchObject({ rows_by_kind: { customer: 0 } });
    const resent = sentFor(runId).slice(101);
    expect(rowsOf(resent)).toEqual([Array.from({ length: 100 }, (_, i) => 1 + i)]);
    expect(resent[0].body.rows[4]).toEqual({ row: 5, values: { email: 'five@ok.example', age: 30 } });
  });
});
