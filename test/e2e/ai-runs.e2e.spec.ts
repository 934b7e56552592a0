import { ANTHROPIC_KEY, FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
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

/**
 * Raw-text and image runs, AI mapping suggestions, dry runs and quota, against a fake
 * vendor on loopback that speaks OpenAI's and Anthropic's real HTTP protocols.
 */

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('0000000dIHDR-rest-of-a-tiny-png')]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);

const PEOPLE = [
  { email: 'ada@example.com', first_name: 'Ada', age: '36', born: '10/12/1815' },
  { email: 'alan@example.com', first_name: 'Alan', age: '41', born: null },
];

describe('AI providers: raw, image and AI-mapped file runs', () => {
  let svc: Service;
  let vendor: FakeVendor;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let openai: string;
  let anthropic: string;

  const admin = (path: string, body?: unknown, method?: string) =>
    call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}${path}`, { token: ADMIN_TOKEN, body, method });

  async function registerProvider(body: Record<string, unknown>): Promise<string> {
    const res = await admin('/providers', body);
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  beforeAll(async () => {
    vendor = new FakeVendor();
    await vendor.start();
    svc = await startService({ AI_TIMEOUT_MS: '400', AI_RETRY_BASE_MS: '5', AI_MAX_ATTEMPTS: '3' });
    org = await setupOrganization(svc);
    openai = await registerProvider({
      name: 'Local OpenAI-compatible',
      provider: 'openai',
      model: 'gpt-test',
      api_key: OPENAI_KEY,
      base_url: `${vendor.baseUrl}/v1`,
    });
    anthropic = await registerProvider({
      name: 'Claude',
      provider: 'anthropic',
      model: 'claude-test',
      api_key: ANTHROPIC_KEY,
      base_url: vendor.baseUrl,
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await vendor?.stop();
  });
  beforeEach(() => {
    vendor.reset();
    vendor.answer = (schema) => (schema === 'extracted_records' ? { records: PEOPLE } : {});
  });

  const rawRun = (body: Record<string, unknown>) =>
    call(`${svc.baseUrl}/v1/transformations/raw`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, content: 'Ada, 36, ada@example.com. Alan, 41.', ...body },
    });
  const fileRun = (body: Record<string, unknown>) =>
    call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, body: { schema_id: org.schemaId, ...body } });

  async function approveAndDownload(created: { id: string; review_url: string }) {
    const review = reviewApi(created.review_url);
    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, created.id, (r) => r.stage === 'final' && r.status === 'completed');
    return (await (await httpFetch(done.download_url)).json()) as any[];
  }

  it('raw run through OpenAI: queued -> processing -> completed in review, records as the provider extracted them', async () => {
    const created = await rawRun({ provider_id: openai });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'queued', stage: 'review', input_source: 'raw' });
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({ status: 'completed', stage: 'review', source_headers: ['email', 'first_name', 'age', 'born'] });
    expect(ready.mapping_rule).toEqual({ email: 'email', first_name: 'first_name', age: 'age', born: 'born' });

    // What went to the vendor: its auth header, the model, the content, a strict JSON schema.
    expect(vendor.requests).toHaveLength(1);
    const sent = vendor.requests[0];
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(sent.body.model).toBe('gpt-test');
    expect(sent.body.messages[0].role).toBe('system');
    expect(sent.body.messages[1].content[0]).toEqual({ type: 'text', text: 'Ada, 36, ada@example.com. Alan, 41.' });
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'extracted_records', strict: true } });
    expect(sent.body.response_format.json_schema.schema.properties.records.items.required).toEqual(['email', 'first_name', 'age', 'born']);

    const records = await approveAndDownload(created.body);
    expect(records).toEqual([
      { email: 'ada@example.com', first_name: 'ADA', age: 36, born: '1815-12-10' },
      { email: 'alan@example.com', first_name: 'ALAN', age: 41, born: null },
    ]);
  });

  it('raw run through Anthropic: x-api-key, anthropic-version, a forced tool whose input is the answer', async () => {
    const created = await rawRun({ provider_id: anthropic });
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(vendor.requests).toHaveLength(1);
    const sent = vendor.requests[0];
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({ model: 'claude-test', tool_choice: { type: 'tool', name: 'extracted_records' } });
    expect(typeof sent.body.system).toBe('string');
    expect(sent.body.max_tokens).toBeGreaterThan(0);
    expect(sent.body.tools[0].input_schema.properties.records.type).toBe('array');
    expect((await approveAndDownload(created.body)).map((r) => r.email)).toEqual(['ada@example.com', 'alan@example.com']);
  });

  it('image run: the upload goes to the vision input as base64 of its bytes', async () => {
    const created = await fileRun({ filename: 'card.png', provider_id: openai });
    expect(created.body.input_source).toBe('image');
    expect((await upload(created.body, PNG)).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    const image = vendor.requests[0].body.messages[1].content.find((c: any) => c.type === 'image_url');
    expect(image.image_url.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);

    vendor.reset();
    const claude = await fileRun({ filename: 'photo.jpg', provider_id: anthropic });
    expect((await upload(claude.body, JPEG)).status).toBe(200);
    await waitForRun(svc, org.apiKey, claude.body.id, (r) => r.review_state === 'active');
    expect(vendor.requests[0].body.messages[0].content[0]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/jpeg', data: JPEG.toString('base64') },
    });
  });

  it('an image whose bytes are not what its name says fails clearly and is never sent', async () => {
    for (const [filename, bytes, says] of [
      ['scan.png', JPEG, 'The file is named .png but its content is an image of type image/jpeg.'],
      ['scan.webp', Buffer.from('name,email\nx,y\n'), 'not a JPEG'],
    ] as const) {
      const created = await fileRun({ filename, provider_id: openai });
      await upload(created.body, bytes);
      const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed');
      expect(failed.error).toMatchObject({
        code: 'source_file_content_mismatch',
        type: 'source_file',
        stage: 'ingestion',
        retryable: false,
      });
      expect(failed.error.message).toContain(says);
    }
    expect(vendor.requests).toHaveLength(0);
  });

  it('file run with a provider: the checked suggestion wins, unknown headers and fields are dropped, the heuristic fills gaps', async () => {
    vendor.answer = (schema) =>
      schema === 'column_mapping' ? { mapping: { email: 'Contact', first_name: 'No such column', age: 'Years', phone: 'Contact' } } : {};
    const created = await fileRun({ filename: 'p.csv', provider_id: openai });
    await upload(created.body, 'Contact,Years,First name\nada@example.com,36,Ada\n');
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready.mapping_rule).toEqual({ email: 'Contact', age: 'Years', first_name: 'First name', born: null });
    const sent = vendor.requests[0].body;
    expect(sent.response_format.json_schema.name).toBe('column_mapping');
    expect(JSON.parse(sent.messages[1].content[0].text)).toEqual({
      columns: ['Contact', 'Years', 'First name'],
      sample_rows: [['ada@example.com', '36', 'Ada']],
    });
    expect((await reviewApi(ready.review_url).state()).body.notices).toEqual([]);
  });

  it('a failed suggestion is a recoverable review issue: heuristic mapping, a notice, no failure', async () => {
    vendor.script = [{ status: 500 }, { status: 502 }, { status: 503 }];
    const created = await fileRun({ filename: 'p.csv', provider_id: anthropic });
    await upload(created.body, 'E-mail,Age\nada@example.com,36\n');
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({ status: 'completed', error: null, failed_at: null });
    expect(ready.mapping_rule).toMatchObject({ email: 'E-mail', age: 'Age' });
    expect(vendor.requests).toHaveLength(3);
    const state = await reviewApi(ready.review_url).state();
    expect(state.body.notices).toEqual([{ code: 'ai_suggestion_failed', message: expect.stringContaining('HTTP 503') }]);
  });

  it('retries 429 with Retry-After and 5xx, then succeeds', async () => {
    vendor.script = [{ status: 429, headers: { 'retry-after': '0' } }, { status: 500 }];
    const created = await rawRun({ provider_id: openai });
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(vendor.requests).toHaveLength(3);
  });

  it('fails a raw run after the bounded attempts with a clear, retryable error; the secret appears nowhere', async () => {
    vendor.script = [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }];
    const created = await rawRun({ provider_id: openai });
    const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed');
    expect(vendor.requests).toHaveLength(3);
    expect(failed.error).toMatchObject({ code: 'extraction_failed', type: 'provider', stage: 'ingestion', retryable: true });
    expect(failed.error.message).toContain('OpenAI had a server error (HTTP 500)');
    expect(JSON.stringify(failed)).not.toContain(OPENAI_KEY);
  });

  it('gives up on answers slower than the timeout after the bounded attempts', async () => {
    vendor.script = [{ delayMs: 1500 }, { delayMs: 1500 }, { delayMs: 1500 }];
    const created = await rawRun({ provider_id: anthropic });
    const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed', 20000);
    expect(vendor.requests).toHaveLength(3);
    expect(failed.error).toMatchObject({ code: 'extraction_failed', retryable: true });
    expect(failed.error.message).toContain('did not answer in time');
  });

  it('fails on an unusable answer without retrying, and on wrong credentials', async () => {
    vendor.answer = () => ({ rows: [] });
    const unusable = await rawRun({ provider_id: openai });
    const failed = await waitForRun(svc, org.apiKey, unusable.body.id, (r) => r.status === 'failed');
    expect(failed.error).toMatchObject({ code: 'extraction_failed', retryable: false });
    expect(failed.error.message).toContain('no "records" array');
    expect(vendor.requests).toHaveLength(1);

    vendor.answer = () => ({ records: [] });
    const empty = await rawRun({ provider_id: openai });
    expect((await waitForRun(svc, org.apiKey, empty.body.id, (r) => r.status === 'failed')).error.code).toBe('extraction_empty');

    // Records with no value at all are no records: nothing is counted that review and output would not read.
    vendor.answer = () => ({
      records: [
        { email: null, first_name: null, age: null, born: null },
        { email: ' ', first_name: '', age: null, born: null },
      ],
    });
    const blank = await rawRun({ provider_id: openai });
    expect((await waitForRun(svc, org.apiKey, blank.body.id, (r) => r.status === 'failed')).error.code).toBe('extraction_empty');
    vendor.answer = () => ({ records: [PEOPLE[0], { email: null, first_name: null, age: null, born: null }, PEOPLE[1]] });
    const mixed = await rawRun({ provider_id: openai });
    const mixedReady = await waitForRun(svc, org.apiKey, mixed.body.id, (r) => r.review_state === 'active');
    expect(mixedReady.total_rows).toBe(2);

    const wrongKey = await registerProvider({
      name: 'Bad key',
      provider: 'openai',
      model: 'm',
      api_key: 'sk-wrong',
      base_url: `${vendor.baseUrl}/v1`,
    });
    const refused = await rawRun({ provider_id: wrongKey });
    const denied = await waitForRun(svc, org.apiKey, refused.body.id, (r) => r.status === 'failed');
    expect(denied.error).toMatchObject({ code: 'extraction_failed', retryable: false });
    expect(denied.error.message).toContain('refused the credentials (HTTP 401)');
  });

  it('never returns the vendor secret or base URL from any API', async () => {
    const listed = await call(`${svc.baseUrl}/v1/providers`, { token: org.apiKey });
    const shown = await call(`${svc.baseUrl}/v1/providers/${openai}`, { token: org.apiKey });
    for (const body of [listed.body, shown.body]) {
      expect(JSON.stringify(body)).not.toContain(OPENAI_KEY);
      expect(JSON.stringify(body)).not.toContain(vendor.baseUrl);
    }
    expect(shown.body.data).toMatchObject({ provider: 'openai', provider_label: 'OpenAI', model: 'gpt-test' });
    const unsupported = await admin('/providers', { name: 'x', provider: 'acme-ai', model: 'm' });
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.error.fields.provider[0]).toContain('openai, anthropic');
  });
});

describe('dry runs and review-preparation quota', () => {
  let svc: Service;
  let vendor: FakeVendor;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let provider: string;

  beforeAll(async () => {
    vendor = new FakeVendor();
    await vendor.start();
    svc = await startService({ AI_TIMEOUT_MS: '400', AI_RETRY_BASE_MS: '5' });
    org = await setupOrganization(svc);
    const res = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/providers`, {
      token: ADMIN_TOKEN,
      body: { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY, base_url: `${vendor.baseUrl}/v1` },
    });
    provider = res.body.data.id;
  });
  afterAll(async () => {
    await svc?.stop();
    await vendor?.stop();
  });

  const setQuota = (n: number | null) =>
    call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/quota`, {
      token: ADMIN_TOKEN,
      method: 'PUT',
      body: { review_preparations: n },
    });
  const create = (path: 'file' | 'raw', body: Record<string, unknown>) =>
    call(`${svc.baseUrl}/v1/transformations/${path}`, { token: org.apiKey, body: { schema_id: org.schemaId, ...body } });

  async function finish(created: { id: string; review_url: string }) {
    await waitForRun(svc, org.apiKey, created.id, (r) => r.review_state === 'active');
    expect((await reviewApi(created.review_url).approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, created.id, (r) => r.stage === 'final' && r.status === 'completed');
    return (await (await httpFetch(done.download_url)).json()) as any[];
  }

  it('dry runs call no provider, take no quota, and give the same synthetic records for the same schema', async () => {
    expect((await setQuota(0)).status).toBe(200);
    const raw = await create('raw', { provider_id: provider, content: 'ignored', dry_run: true });
    const file = await create('file', { filename: 'any.csv', dry_run: true });
    expect(file.status).toBe(201);
    await upload(file.body, 'whatever,is,uploaded\n1,2,3\n');
    const image = await create('file', { filename: 'x.png', provider_id: provider, dry_run: true });
    await upload(image.body, PNG);

    const outputs = [await finish(raw.body), await finish(file.body), await finish(image.body)];
    expect(vendor.requests).toHaveLength(0);
    expect(outputs[1]).toEqual(outputs[0]);
    expect(outputs[2]).toEqual(outputs[0]);
    expect(outputs[0]).toHaveLength(10);
    // Every synthetic value passes its field's checks and transformations.
    expect(outputs[0][0]).toEqual({ email: 'email1@example.com', first_name: 'FIRST_NAME 1', age: 1, born: '2024-01-15' });
    const shown = await call(`${svc.baseUrl}/v1/transformations/${raw.body.id}`, { token: org.apiKey });
    expect(shown.body.dry_run).toBe(true);
    const quota = await setQuota(0);
    expect(quota.body.used).toBe(0);
  });

  it('refuses a non-dry file run with 429 review_preparation_quota_exceeded when none is left, creating nothing', async () => {
    await setQuota(1);
    const first = await create('file', { filename: 'a.csv' });
    const second = await create('file', { filename: 'b.csv' });
    expect([first.status, second.status]).toEqual([201, 201]); // nothing is taken before preparation starts
    await upload(first.body, 'E-mail\na@example.com\n');
    await waitForRun(svc, org.apiKey, first.body.id, (r) => r.review_state === 'active');
    expect((await setQuota(1)).body.used).toBe(1);

    const refused = await create('file', { filename: 'c.csv' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'review_preparation_quota_exceeded', type: 'quota_exceeded' });
    expect(refused.headers.get('retry-after')).toBeNull();
    const then = ' Dry runs are still possible; ask an administrator to raise the quota.';
    expect(refused.body.error.message).toBe(`The organization has used the 1 review preparation of its quota.${then}`);
    // A quota set below what was used (here 0) says so: it read "has used all 0 review preparations".
    await setQuota(0);
    const none = await create('file', { filename: 'c.csv' });
    expect([none.status, none.body.error.message]).toEqual([429, `The organization's quota allows no review preparations.${then}`]);
    await setQuota(1);

    // The run created while a unit was left, but uploaded after it was gone, fails clearly.
    await upload(second.body, 'E-mail\nb@example.com\n');
    const failed = await waitForRun(svc, org.apiKey, second.body.id, (r) => r.status === 'failed');
    expect(failed.error).toMatchObject({ code: 'review_preparation_quota_exceeded', type: 'quota', stage: 'review_preparation' });
    expect((await setQuota(1)).body.used).toBe(1);

    // Dry runs and raw runs are not limited by it.
    expect((await create('file', { filename: 'd.csv', dry_run: true })).status).toBe(201);
    await setQuota(null);
  });
});
