import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import {
  ADMIN_TOKEN,
  call,
  freePort,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

/**
 * A provider's base_url is guarded like a webhook URL: literal local and private addresses
 * and localhost are refused at registration (422), HTTPS is required in production, a
 * stored key is never sent to a new address without being given again, and a call refused
 * by the address guard fails with the same message as any unreachable vendor. Only
 * loopback is ever connected to.
 */
const providers = (svc: Service, orgId: string) => `${svc.baseUrl}/admin/v1/organizations/${orgId}/providers`;

describe('AI provider base_url at registration', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    svc = await startService({ AI_ALLOWED_ADDRESSES: '' }); // nothing non-public let through
    org = await setupOrganization(svc);
  });
  afterAll(() => svc?.stop());

  it.each([
    'http://127.0.0.1:11434/v1',
    'http://localhost:11434/v1',
    'http://api.localhost/v1',
    'http://[::1]:8080/v1',
    'http://2130706433/v1',
    'http://0x7f.0.0.1/v1',
    'http://127.1/v1',
    'http://10.0.0.1/v1',
    'https://172.16.0.5/v1',
    'http://192.168.1.10:8000/v1',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/v1',
    'http://[::ffff:10.0.0.1]/v1',
    'http://[fd00::1]/v1',
    'http://0.0.0.0:8080/v1',
  ])('refuses %s with 422 on POST and PUT', async (baseUrl) => {
    const body = { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY, base_url: baseUrl };
    const created = await call(providers(svc, org.orgId), { token: ADMIN_TOKEN, body });
    expect({ baseUrl, status: created.status }).toEqual({ baseUrl, status: 422 });
    expect(Object.keys(created.body.error.fields)).toEqual(['base_url']);
    expect(created.body.error.fields.base_url[0]).toMatch(/^The base url field must not point to/);

    const fine = await call(providers(svc, org.orgId), { token: ADMIN_TOKEN, body: { ...body, base_url: 'https://llm.example.com/v1' } });
    expect(fine.status).toBe(201);
    const updated = await call(`${providers(svc, org.orgId)}/${fine.body.data.id}`, { token: ADMIN_TOKEN, method: 'PUT', body });
    expect({ baseUrl, status: updated.status }).toEqual({ baseUrl, status: 422 });
    expect(Object.keys(updated.body.error.fields)).toEqual(['base_url']);
  });

  it.each(['https://user:s3cret@llm.example.com/v1', 'https://apikey@llm.example.com/v1'])(
    'refuses %s with 422: a secret in the URL would be shown to every member (api_key is sealed)',
    async (baseUrl) => {
      const created = await call(providers(svc, org.orgId), {
        token: ADMIN_TOKEN,
        body: { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY, base_url: baseUrl },
      });
      expect(created.status).toBe(422);
      expect(created.body.error.fields).toEqual({ base_url: [expect.stringMatching(/must not hold a user name or password/)] });
    },
  );

  it('accepts public names and addresses, and no base_url (the vendor default)', async () => {
    for (const baseUrl of ['https://api.openai.example/v1', 'http://93.184.216.34/v1', 'https://[2606:4700::1111]/v1', null]) {
      const res = await call(providers(svc, org.orgId), {
        token: ADMIN_TOKEN,
        body: { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY, base_url: baseUrl },
      });
      expect({ baseUrl, status: res.status }).toEqual({ baseUrl, status: 201 });
    }
  });

  it('requires HTTPS in production', async () => {
    const production = await startService({ NODE_ENV: 'production' });
    try {
      const o = await setupOrganization(production);
      const body = { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY };
      const http = await call(providers(production, o.orgId), {
        token: ADMIN_TOKEN,
        body: { ...body, base_url: 'http://llm.example.com/v1' },
      });
      expect(http.status).toBe(422);
      expect(http.body.error.fields.base_url).toEqual(['The base url field must use HTTPS.']);
      const https = await call(providers(production, o.orgId), {
        token: ADMIN_TOKEN,
        body: { ...body, base_url: 'https://llm.example.com/v1' },
      });
      expect(https.status).toBe(201);
    } finally {
      await production.stop();
    }
  });
});

describe('a stored API key only goes where it was registered for', () => {
  let svc: Service;
  let vendor: FakeVendor;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    vendor = new FakeVendor();
    await vendor.start();
    svc = await startService({ AI_RETRY_BASE_MS: '5', AI_TIMEOUT_MS: '2000' });
    org = await setupOrganization(svc);
  });
  afterAll(async () => {
    await svc?.stop();
    await vendor?.stop();
  });

  const put = (id: string, body: object) => call(`${providers(svc, org.orgId)}/${id}`, { token: ADMIN_TOKEN, method: 'PUT', body });
  const extractWith = async (providerId: string) => {
    const created = await call(`${svc.baseUrl}/v1/transformations/raw`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, content: 'Ada', provider_id: providerId },
    });
    return waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active' || r.status === 'failed');
  };

  it('a PUT that changes base_url (or the vendor, hence its endpoint) without api_key is refused with 422', async () => {
    vendor.answer = () => ({ records: [{ email: 'ada@example.com', first_name: 'Ada', age: null, born: null }] });
    const base = { name: 'p', provider: 'openai', model: 'm', base_url: `${vendor.baseUrl}/v1` };
    const created = await call(providers(svc, org.orgId), { token: ADMIN_TOKEN, body: { ...base, api_key: OPENAI_KEY } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const elsewhere = `http://127.0.0.1:${await freePort()}/v1`;

    const moved = await put(id, { ...base, base_url: elsewhere });
    expect(moved.status).toBe(422);
    expect(moved.body.error.fields).toEqual({ api_key: [expect.stringContaining('required when the base url or the provider changes')] });
    const toDefault = await put(id, { ...base, base_url: null });
    expect(toDefault.status).toBe(422);
    expect(Object.keys(toDefault.body.error.fields)).toEqual(['api_key']);

    // The same address (another spelling of it) keeps the stored key, which still works.
    const same = await put(id, { ...base, name: 'renamed', base_url: `${vendor.baseUrl}/v1/` });
    expect(same.status).toBe(200);
    vendor.reset();
    expect((await extractWith(id)).review_state).toBe('active');
    expect(vendor.requests[0].headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);

    // With the key given again, the move is accepted.
    expect((await put(id, { ...base, base_url: elsewhere, api_key: 'sk-for-the-new-address' })).status).toBe(200);
    expect((await put(id, { ...base, base_url: `${vendor.baseUrl}/v1`, api_key: OPENAI_KEY })).status).toBe(200);

    // A vendor change with no base_url moves the key to the other vendor's endpoint: refused too.
    const vendorDefault = await call(providers(svc, org.orgId), {
      token: ADMIN_TOKEN,
      body: { name: 'q', provider: 'openai', model: 'm', api_key: OPENAI_KEY },
    });
    const switched = await put(vendorDefault.body.data.id, { name: 'q', provider: 'anthropic', model: 'm' });
    expect(switched.status).toBe(422);
    expect(Object.keys(switched.body.error.fields)).toEqual(['api_key']);

    // Without a stored key there is nothing to protect.
    const keyless = await call(providers(svc, org.orgId), { token: ADMIN_TOKEN, body: { ...base, name: 'local' } });
    expect((await put(keyless.body.data.id, { ...base, name: 'local', base_url: elsewhere })).status).toBe(200);
  });
});

describe('a vendor call refused by the address guard', () => {
  it('fails with the same generic message as a closed port; the vendor gets nothing; details stay out of the run', async () => {
    const vendor = new FakeVendor();
    await vendor.start();
    const dir = mkdtempSync(join(tmpdir(), 'svc-ai-guard-'));
    const env = { AI_RETRY_BASE_MS: '5', AI_TIMEOUT_MS: '2000' };
    // Registered while loopback was allowed (as the harness allows it), then called by a service whose guard lets nothing private through.
    let svc = await startService(env, dir);
    try {
      const org = await setupOrganization(svc);
      const register = async (baseUrl: string) =>
        (
          await call(providers(svc, org.orgId), {
            token: ADMIN_TOKEN,
            body: { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY, base_url: baseUrl },
          })
        ).body.data.id as string;
      const open = await register(`${vendor.baseUrl}/v1`);
      const closed = await register(`http://127.0.0.1:${await freePort()}/v1`);
      const rawRun = async (providerId: string) => {
        const created = await call(`${svc.baseUrl}/v1/transformations/raw`, {
          token: org.apiKey,
          body: { schema_id: org.schemaId, content: 'Ada, 36', provider_id: providerId },
        });
        return waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed');
      };

      const closedPort = (await rawRun(closed)).error;
      await svc.stop();
      svc = await startService({ ...env, AI_ALLOWED_ADDRESSES: '', PORT: new URL(svc.baseUrl).port }, dir);

      const refused = (await rawRun(open)).error;
      expect(refused).toEqual({ ...closedPort, details: refused.details });
      expect(refused).toMatchObject({
        code: 'extraction_failed',
        type: 'provider',
        retryable: true,
        message: 'The AI provider could not extract records: OpenAI could not be reached.',
      });
      for (const error of [refused, closedPort]) expect(JSON.stringify(error)).not.toMatch(/127\.0\.0\.1|ECONN|allowed|private|DNS/i);

      // The mapping suggestion of a file run: the same words in the reviewer's notice.
      const file = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'p.csv', provider_id: open },
      });
      await upload(file.body, 'E-mail,Age\nada@example.com,36\n');
      const ready = await waitForRun(svc, org.apiKey, file.body.id, (r) => r.review_state === 'active');
      const notices = (await reviewApi(ready.review_url).state()).body.notices;
      expect(notices).toEqual([
        {
          code: 'ai_suggestion_failed',
          message: 'The AI suggestion failed: OpenAI could not be reached. The mapping was suggested by name matching.',
        },
      ]);
      expect(JSON.stringify(notices)).not.toMatch(/127\.0\.0\.1|ECONN|allowed|private/i);

      expect(vendor.requests).toHaveLength(0);
    } finally {
      await svc.stop();
      await vendor.stop();
    }
  });
});
