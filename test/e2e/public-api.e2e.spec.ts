import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { ApiKeyGuard } from '../../apps/gateway/src/http/auth.guard';
import { ADMIN_TOKEN, call, setupOrganization, startService, type Service } from '../support/service-harness';

describe('public API contract', () => {
  let svc: Service;
  let a: Awaited<ReturnType<typeof setupOrganization>>;
  let b: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService();
    a = await setupOrganization(svc);
    b = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());
  const url = (p: string) => `${svc.baseUrl}${p}`;
  const envelope = (status: number, code: string) => ({
    error: expect.objectContaining({ code, message: expect.any(String), type: expect.any(String), request_id: expect.any(String) }),
  });

  it('401 without or with a wrong key, in the envelope', async () => {
    for (const token of [undefined, 'tsk_wrong']) {
      const res = await call(url('/v1/schemas'), { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(envelope(401, 'unauthenticated'));
      expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    }
  });

  it('every 401 names its scheme in WWW-Authenticate (RFC 9110 §11.6.1, RFC 6750 §3)', async () => {
    const challenge = async (path: string, token?: string) => {
      const res = await call(url(path), { token });
      expect(res.status).toBe(401);
      return res.headers.get('www-authenticate');
    };
    expect(await challenge('/v1/schemas')).toBe('Bearer realm="api"');
    expect(await challenge('/v1/schemas', 'tsk_wrong')).toBe('Bearer realm="api", error="invalid_token"');
    expect(await challenge(`/admin/v1/organizations/${a.orgId}/api-keys`)).toBe('Bearer realm="admin"');
    expect(await challenge(`/admin/v1/organizations/${a.orgId}/api-keys`, a.apiKey)).toBe('Bearer realm="admin", error="invalid_token"');
    // Two Authorization headers: error="invalid_request" (http-hardening.e2e.spec.ts, which sends them raw).
    // Answers other than 401 carry none.
    expect((await call(url('/v1/schemas'), { token: a.apiKey })).headers.get('www-authenticate')).toBeNull();
  });

  it('a revoked key stops working at once; a new key works', async () => {
    const org = await call(url('/admin/v1/organizations'), { token: ADMIN_TOKEN, body: { name: 'Temp' } });
    const key2 = await call(url(`/admin/v1/organizations/${org.body.id}/api-keys`), { token: ADMIN_TOKEN, method: 'POST' });
    expect(key2.status).toBe(201);
    expect((await call(url('/v1/schemas'), { token: key2.body.api_key })).status).toBe(200);
    const del = await call(url(`/admin/v1/organizations/${org.body.id}/api-keys/${key2.body.id}`), {
      token: ADMIN_TOKEN,
      method: 'DELETE',
    });
    expect(del.status).toBe(204);
    expect((await call(url('/v1/schemas'), { token: key2.body.api_key })).status).toBe(401);
    expect((await call(url('/v1/schemas'), { token: org.body.api_key })).status).toBe(200);
  });

  it("another organization's run, schema and provider are 404, never visible", async () => {
    const run = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { schema_id: a.schemaId, filename: 'x.csv' } });
    expect(await call(url(`/v1/transformations/${run.body.id}`), { token: b.apiKey })).toMatchObject({
      status: 404,
      body: envelope(404, 'not_found'),
    });
    expect((await call(url(`/v1/schemas/${a.schemaId}`), { token: b.apiKey })).status).toBe(404);
    expect((await call(url(`/v1/transformations/${randomUUID()}`), { token: a.apiKey })).status).toBe(404);
    expect((await call(url('/v1/transformations/not-a-uuid'), { token: a.apiKey })).status).toBe(404);
    // b cannot create a run on a's schema either
    const cross = await call(url('/v1/transformations/file'), { token: b.apiKey, body: { schema_id: a.schemaId, filename: 'x.csv' } });
    expect(cross.status).toBe(422);
    expect(cross.body.error.fields.schema_id).toEqual(['The selected schema id is invalid.']);
  });

  it('422 with error.fields for every rule of the file request', async () => {
    const res = await call(url('/v1/transformations/file'), {
      token: a.apiKey,
      body: {
        schema_id: 'nope',
        filename: 'x'.repeat(252) + '.csv',
        dry_run: 'yes',
        input_has_header: 'no',
        output_format: 'xml',
        notify_url: 'ftp://x',
        success_callback: 'not a url',
        cancel_callback: 5,
        locale: 7,
        appearance: 'blue',
        metadata: [1],
        column_labels: 'x',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', type: 'validation', message: 'The given data was invalid.' });
    expect(Object.keys(res.body.error.fields).sort()).toEqual([
      'appearance',
      'cancel_callback',
      'column_labels',
      'dry_run',
      'filename',
      'input_has_header',
      'locale',
      'metadata',
      'notify_url',
      'output_format',
      'schema_id',
      'success_callback',
    ]);
  });

  it.each([
    [{ filename: 'a.pdf' }, 'filename'],
    // A name that is only an extension's letters, or only a dot and them, has no extension.
    [{ filename: 'csv' }, 'filename'],
    [{ filename: 'png', provider_id: randomUUID() }, 'filename'],
    [{ filename: '.csv' }, 'filename'],
    [{ filename: 'report.' }, 'filename'],
    [{ filename: 'photo.JPG' }, 'provider_id'],
    [{ filename: 'a.csv', provider_id: randomUUID() }, 'provider_id'],
    [{ filename: 'a.csv', column_labels: { nope: 'X' } }, 'column_labels.nope'],
    [{}, 'filename'],
  ])('422 for %j on %s', async (body, field) => {
    const res = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { schema_id: a.schemaId, ...body } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error.fields)).toContain(field);
  });

  it('422 for the raw request rules, and a body that is not an object', async () => {
    const res = await call(url('/v1/transformations/raw'), {
      token: a.apiKey,
      body: { schema_id: a.schemaId, content: 'x'.repeat(50001) },
    });
    expect(Object.keys(res.body.error.fields).sort()).toEqual(['content', 'provider_id']);
    for (const endpoint of ['raw', 'file'])
      for (const raw of ['[1]', '"just a string"', 'null', '42']) {
        // Its one problem, alone: no field of a body that is not an object can be judged.
        const notObject = await call(url(`/v1/transformations/${endpoint}`), { token: a.apiKey, raw });
        expect([endpoint, raw, notObject.status, notObject.body.error.fields]).toEqual([
          endpoint,
          raw,
          422,
          { body: ['The request body must be a JSON object.'] },
        ]);
      }
  });

  it('input_has_header is ignored for image filenames, whatever it holds; checked for structured files', async () => {
    const provider = await call(url(`/admin/v1/organizations/${a.orgId}/providers`), {
      token: ADMIN_TOKEN,
      body: { name: 'Images', provider: 'anthropic', model: 'claude-x', api_key: 'sk-ant-x' },
    });
    const body = { schema_id: a.schemaId, provider_id: provider.body.data.id, input_has_header: 'x', dry_run: true };
    const image = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { ...body, filename: 'scan.png' } });
    expect(image.status).toBe(201);
    // Not the value given: null until the image is read (then true, as for every image run).
    expect((await call(url(`/v1/transformations/${image.body.id}`), { token: a.apiKey })).body.input_has_header).toBeNull();
    const csv = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { ...body, filename: 'people.csv' } });
    expect([csv.status, Object.keys(csv.body.error.fields)]).toEqual([422, ['input_has_header']]);
  });

  it('the filename rule lists every extension accepted, jpeg included', async () => {
    const res = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { schema_id: a.schemaId, filename: 'a.pdf' } });
    expect(res.body.error.fields.filename).toEqual(['The filename must end in one of: csv, tsv, txt, xlsx, jpg, jpeg, png, webp.']);
  });

  it('ids in upper case are the same ids: schemas and providers found, a run created on the lower-case id', async () => {
    const upper = a.schemaId.toUpperCase();
    expect(upper).not.toBe(a.schemaId);
    const shown = await call(url(`/v1/schemas/${upper}`), { token: a.apiKey });
    expect([shown.status, shown.body.data?.id]).toEqual([200, a.schemaId]);
    const p = await call(url(`/admin/v1/organizations/${a.orgId}/providers`), {
      token: ADMIN_TOKEN,
      body: { name: 'Upper', provider: 'anthropic', model: 'claude-x', api_key: 'sk-ant-x' },
    });
    const provider = await call(url(`/v1/providers/${String(p.body.data.id).toUpperCase()}`), { token: a.apiKey });
    expect([provider.status, provider.body.data?.id]).toEqual([200, p.body.data.id]);
    const run = await call(url('/v1/transformations/file'), {
      token: a.apiKey,
      body: { schema_id: upper, filename: 'a.png', provider_id: String(p.body.data.id).toUpperCase(), dry_run: true },
    });
    expect(run.status).toBe(201);
    const stored = await call(url(`/v1/transformations/${run.body.id}`), { token: a.apiKey });
    expect([stored.body.schema_id, stored.body.provider_id]).toEqual([a.schemaId, p.body.data.id]);
    // Still scoped: the other organization's key finds nothing under either spelling.
    expect((await call(url(`/v1/schemas/${upper}`), { token: b.apiKey })).status).toBe(404);
  });

  it('unsupported locales fall back to en; locale is case-insensitive; a regional tag is its language', async () => {
    const given = ['DE', 'xx', 'fr-CA', 'pt-BR'];
    const shown: string[] = [];
    for (const locale of given) {
      const r = await call(url('/v1/transformations/file'), {
        token: a.apiKey,
        body: { schema_id: a.schemaId, filename: 'a.csv', locale },
      });
      const review = new URL(r.body.review_url);
      shown.push((await call(`${review.origin}${review.pathname}/state${review.search}`)).body.locale);
    }
    expect(shown).toEqual(['de', 'en', 'fr', 'en']);
  });

  it('envelopes on unknown routes, malformed JSON and oversize bodies', async () => {
    expect(await call(url('/v2/nothing'), { token: a.apiKey })).toMatchObject({ status: 404, body: envelope(404, 'not_found') });
    expect(await call(url('/v1/transformations/file'), { token: a.apiKey, raw: '{"schema_id":' })).toMatchObject({
      status: 400,
      body: envelope(400, 'bad_request'),
    });
    const big = await call(url('/v1/transformations/raw'), {
      token: a.apiKey,
      raw: JSON.stringify({ content: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big).toMatchObject({ status: 413, body: envelope(413, 'payload_too_large') });
  });

  it('lists schemas and providers in the pagination envelope', async () => {
    for (let i = 0; i < 2; i++) {
      await call(url(`/admin/v1/organizations/${a.orgId}/schemas`), {
        token: ADMIN_TOKEN,
        body: { name: `S${i}`, fields: { x: { description: 'x', data_type: 'string', is_required: false } } },
      });
    }
    const page = await call(url('/v1/schemas?page=2&per_page=2'), { token: a.apiKey });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta).toMatchObject({
      current_page: 2,
      from: 3,
      to: 3,
      last_page: 2,
      per_page: 2,
      total: 3,
      path: url('/v1/schemas'),
    });
    expect(page.body.links).toEqual({
      first: url('/v1/schemas?page=1&per_page=2'),
      last: url('/v1/schemas?page=2&per_page=2'),
      prev: url('/v1/schemas?page=1&per_page=2'),
      next: null,
    });
    expect(page.body.meta.links.map((l: any) => l.label)).toEqual(['&laquo; Previous', '1', '2', 'Next &raquo;']);
    const empty = await call(url('/v1/providers'), { token: b.apiKey });
    expect(empty.body).toMatchObject({ data: [], meta: { total: 0, from: null, to: null, current_page: 1, last_page: 1, per_page: 15 } });
    expect((await call(url('/v1/schemas?per_page=101'), { token: a.apiKey })).status).toBe(422);
    // Only plain decimal digits are a page number: not hexadecimal, exponents, signs or blanks.
    for (const given of ['0x3', '1e2', '%2B5', '%205', '5%20', '2.0']) {
      const res = await call(url(`/v1/schemas?per_page=${given}`), { token: a.apiKey });
      expect([given, res.status, Object.keys(res.body.error?.fields ?? {})]).toEqual([given, 422, ['per_page']]);
    }
    expect((await call(url('/v1/schemas?page=1&per_page=007'), { token: a.apiKey })).body.meta?.per_page).toBe(7);
    const one = await call(url(`/v1/schemas/${a.schemaId}`), { token: a.apiKey });
    expect(Object.keys(one.body.data).sort()).toEqual(['created_at', 'fields', 'id', 'name', 'updated_at']);
  });

  it('provider resources carry the spec fields and never the vendor secret', async () => {
    const p = await call(url(`/admin/v1/organizations/${a.orgId}/providers`), {
      token: ADMIN_TOKEN,
      body: { name: 'P', provider: 'anthropic', model: 'claude-x', api_key: 'sk-ant-secret' },
    });
    const shown = await call(url(`/v1/providers/${p.body.data.id}`), { token: a.apiKey });
    expect(Object.keys(shown.body.data).sort()).toEqual([
      'created_at',
      'id',
      'model',
      'model_label',
      'name',
      'provider',
      'provider_label',
      'updated_at',
    ]);
    expect(shown.body.data).toMatchObject({ provider_label: 'Anthropic', model_label: 'claude-x' });
    expect(JSON.stringify((await call(url('/v1/providers'), { token: a.apiKey })).body)).not.toContain('sk-ant-secret');
  });

  it('signed file URLs refuse a tampered, wrong-method or expired request with 403', async () => {
    const run = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { schema_id: a.schemaId, filename: 'x.csv' } });
    const put = new URL(run.body.upload.url);
    const tampered = new URL(put);
    tampered.searchParams.set(
      'signature',
      put.searchParams.get('signature')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
    );
    const wrongMethod = await fetch(put, { method: 'GET' });
    const expired = new URL(put);
    expired.searchParams.set('expires', '1000');
    for (const [res, code] of [
      [await fetch(tampered, { method: 'PUT', body: 'x' }), 'invalid_signature'],
      [wrongMethod, 'invalid_signature'],
      [await fetch(expired, { method: 'PUT', body: 'x' }), 'invalid_signature'],
    ] as const) {
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe(code);
    }
  });

  it('a review link with a changed run id or signature is refused', async () => {
    const run = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { schema_id: a.schemaId, filename: 'x.csv' } });
    const review = new URL(run.body.review_url);
    const other = await call(url('/v1/transformations/file'), { token: a.apiKey, body: { schema_id: a.schemaId, filename: 'x.csv' } });
    const swapped = `${review.origin}/review/${other.body.id}/state${review.search}`;
    expect((await call(swapped)).status).toBe(403);
    const page = await fetch(`${review.origin}${review.pathname}?signature=forged`);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('This review link is invalid');
    const good = await fetch(review);
    expect(good.status).toBe(200);
    const html = await good.text();
    expect(good.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(good.headers.get('referrer-policy')).toBe('no-referrer');
    // Only our own assets, by path: nothing fetched from another origin (the tab's icon is inline, a data: URL).
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((url) => !url.startsWith('data:image/svg+xml,'));
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/review-assets\//);
      const res = await fetch(`${review.origin}${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
    }
  });

  it("serves the OpenAPI document with the spec's operations and the run list and deliveries the console added", async () => {
    const doc = await call(url('/openapi.json'));
    expect(doc.status).toBe(200);
    const ops = Object.values(doc.body.paths)
      .flatMap((p: any) => Object.values(p).map((o: any) => o.operationId))
      .sort();
    expect(ops).toEqual([
      'v1.providers.index',
      'v1.providers.show',
      'v1.schemas.index',
      'v1.schemas.show',
      'v1.transformations.deliveries',
      'v1.transformations.file',
      'v1.transformations.index',
      'v1.transformations.raw',
      'v1.transformations.show',
    ]);
    expect(Object.keys(doc.body.components.schemas.TransformationRun.properties)).toContain('file_retention_until');
  });

  it('admin API: 401 without the admin token; schema field rules are checked', async () => {
    expect((await call(url('/admin/v1/organizations'), { body: { name: 'x' } })).status).toBe(401);
    expect((await call(url('/admin/v1/organizations'), { token: a.apiKey, body: { name: 'x' } })).status).toBe(401);
    const bad = await call(url(`/admin/v1/organizations/${a.orgId}/schemas`), {
      token: ADMIN_TOKEN,
      body: { name: 'S', fields: { x: { data_type: 'string', transformations: { shout: { enabled: true } } } } },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(['fields.x.description', 'fields.x.is_required', 'fields.x.transformations']);
    const quota = await call(url(`/admin/v1/organizations/${a.orgId}/quota`), {
      token: ADMIN_TOKEN,
      method: 'PUT',
      body: { review_preparations: 10 },
    });
    expect(quota.body).toEqual({ review_preparations: 10, used: 0 });
    const rotated = await call(url(`/admin/v1/organizations/${a.orgId}/webhook/rotate-secret`), { token: ADMIN_TOKEN, method: 'POST' });
    expect(rotated.body.webhook_secret).toMatch(/^whsec_/);
  });

  it("admin API: a created schema or provider is named in Location (the public API's URL, which reads it); what has no GET is not", async () => {
    const org = await call(url('/admin/v1/organizations'), { token: ADMIN_TOKEN, body: { name: 'Located' } });
    expect([org.status, org.headers.get('location')]).toEqual([201, null]);
    const o = `/admin/v1/organizations/${org.body.id}`;
    const key = await call(url(`${o}/api-keys`), { token: ADMIN_TOKEN, method: 'POST' });
    expect([key.status, key.headers.get('location')]).toEqual([201, null]);
    const invitation = await call(url(`${o}/invitations`), { token: ADMIN_TOKEN, body: { email: 'owner@located.example', role: 'owner' } });
    expect([invitation.status, invitation.headers.get('location')]).toEqual([201, null]);

    const schema = await call(url(`${o}/schemas`), {
      token: ADMIN_TOKEN,
      body: { name: 'S', fields: { x: { description: 'x', data_type: 'string', is_required: false } } },
    });
    const provider = await call(url(`${o}/providers`), { token: ADMIN_TOKEN, body: { name: 'P', provider: 'openai', model: 'gpt-x' } });
    for (const [created, collection] of [
      [schema, 'schemas'],
      [provider, 'providers'],
    ] as const) {
      expect([created.status, created.headers.get('location')]).toEqual([201, url(`/v1/${collection}/${created.body.data.id}`)]);
      const read = await call(created.headers.get('location')!, { token: org.body.api_key });
      expect([read.status, read.body.data.id]).toEqual([200, created.body.data.id]);
    }
    // A replacement (200) names no new resource.
    const replaced = await call(url(`${o}/schemas/${schema.body.data.id}`), {
      token: ADMIN_TOKEN,
      method: 'PUT',
      body: { name: 'S2', fields: { x: { description: 'x', data_type: 'string', is_required: false } } },
    });
    expect([replaced.status, replaced.headers.get('location')]).toEqual([200, null]);
  });
});

describe('rate limiting', () => {
  it('429 with Retry-After and rate-limit headers once a key passes its limit', async () => {
    const svc = await startService({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const org = await setupOrganization(svc);
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 4; i++) {
        last = await fetch(`${svc.baseUrl}/v1/schemas`, { headers: { authorization: `Bearer ${org.apiKey}` } });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(last!.headers.get('x-ratelimit-limit')).toBe('3');
      expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await last!.json()).error.code).toBe('too_many_requests');
    } finally {
      await svc.stop();
    }
  });

  it('counts requests refused for their body (400, 415, 413), and refuses a key over its limit without waiting for a body', async () => {
    const svc = await startService({ RATE_LIMIT_PER_MINUTE: '4' });
    try {
      const org = await setupOrganization(svc);
      const post = (contentType: string, body: string) =>
        fetch(`${svc.baseUrl}/v1/transformations/file`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': contentType },
          body,
        });
      const answers = [
        await post('application/json', '{not json'),
        await post('text/xml', '<run/>'),
        await post('application/json', `{"filename":"${'a'.repeat(1024 * 1024)}"}`),
      ];
      expect(answers.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')])).toEqual([
        [400, '3'],
        [415, '2'],
        [413, '1'],
      ]);
      expect(answers.every((r) => r.headers.get('x-ratelimit-limit') === '4')).toBe(true);
      expect((await fetch(`${svc.baseUrl}/v1/schemas`, { headers: { authorization: `Bearer ${org.apiKey}` } })).status).toBe(200);

      // Over the limit: the headers of a POST whose body never comes are answered 429 at once, not after the body's deadline.
      const { port } = new URL(svc.baseUrl);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(
            `POST /v1/transformations/file HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${org.apiKey}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n',
          ),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
          if (text.includes('too_many_requests')) {
            socket.destroy();
            resolve(text);
          }
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(answer).toMatch(/\r\nx-ratelimit-remaining: 0\r\n/i);
    } finally {
      await svc.stop();
    }
  });
});

describe("the public API's reads, answered without Nest's pipeline", () => {
  it('still admit through the API-key guard (rate limit, headers, 429), scope to the organization and answer errors in the envelope', async () => {
    const svc = await startService({ RATE_LIMIT_PER_MINUTE: '8' });
    const canActivate = jest.spyOn(ApiKeyGuard.prototype, 'canActivate');
    try {
      const a = await setupOrganization(svc);
      const b = await setupOrganization(svc);
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: a.apiKey,
        body: { schema_id: a.schemaId, filename: 'a.csv' },
      });
      expect(run.status).toBe(201);
      expect(canActivate).toHaveBeenCalledTimes(1); // the POST went through Nest's guard

      const reads: [string, (body: any) => void][] = [
        [`/v1/transformations/${run.body.id}`, (body) => expect(body).toMatchObject({ id: run.body.id, status: 'awaiting_upload' })],
        [`/v1/transformations/${run.body.id}`, (body) => expect(body.id).toBe(run.body.id)],
        ['/v1/transformations?status=awaiting_upload', (body) => expect(body.data.map((r: { id: string }) => r.id)).toEqual([run.body.id])],
        ['/v1/schemas', (body) => expect(body.data.map((s: { id: string }) => s.id)).toEqual([a.schemaId])],
        [`/v1/schemas/${a.schemaId}`, (body) => expect(body.data.id).toBe(a.schemaId)],
        ['/v1/providers?per_page=5', (body) => expect(body.data).toEqual([])],
        [`/v1/transformations/${run.body.id}`, (body) => expect(body.id).toBe(run.body.id)],
      ];
      // An empty path parameter is not the route (as Nest's adapter has it): 404, before the key's limit is counted.
      for (const path of ['/v1/transformations/', '/v1/schemas/', '/v1/providers/']) {
        const res = await call(`${svc.baseUrl}${path}`, { token: a.apiKey });
        expect(res.status).toBe(404);
        expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      }
      const remaining: (string | null)[] = [];
      for (const [path, check] of reads) {
        const res = await call(`${svc.baseUrl}${path}`, { token: a.apiKey });
        expect(res.status).toBe(200);
        check(res.body);
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        remaining.push(res.headers.get('x-ratelimit-remaining'));
      }
      expect(remaining).toEqual(['6', '5', '4', '3', '2', '1', '0']);
      expect(canActivate).toHaveBeenCalledTimes(1); // the reads did not
      const limited = await call(`${svc.baseUrl}/v1/transformations/${run.body.id}`, { token: a.apiKey });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: 'too_many_requests', request_id: limited.headers.get('x-request-id') });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      // Another organization's ids are 404, as unknown ids and malformed ones are; a bad query is 422.
      for (const path of [
        `/v1/transformations/${run.body.id}`,
        '/v1/transformations/not-a-uuid',
        `/v1/transformations/${randomUUID()}`,
        `/v1/schemas/${a.schemaId}`,
      ]) {
        const res = await call(`${svc.baseUrl}${path}`, { token: b.apiKey });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'not_found', request_id: res.headers.get('x-request-id') });
      }
      const badQuery = await call(`${svc.baseUrl}/v1/transformations?status=done`, { token: b.apiKey });
      expect(badQuery.status).toBe(422);
      expect(badQuery.body.error.fields).toHaveProperty('status');
      expect((await call(`${svc.baseUrl}/v1/schemas?per_page=500`, { token: b.apiKey })).status).toBe(422);
      expect((await call(`${svc.baseUrl}/v1/transformations/${run.body.id}`, { token: 'tsk_wrong' })).status).toBe(401);
    } finally {
      canActivate.mockRestore();
      await svc.stop();
    }
  });
});

describe('production mode', () => {
  it('refuses http callback URLs with 422', async () => {
    const svc = await startService({ NODE_ENV: 'production' });
    try {
      const org = await setupOrganization(svc);
      const res = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: {
          schema_id: org.schemaId,
          filename: 'a.csv',
          notify_url: 'http://example.test/h',
          success_callback: 'https://example.test/ok',
        },
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.error.fields)).toEqual(['notify_url']);
    } finally {
      await svc.stop();
    }
  });
});
