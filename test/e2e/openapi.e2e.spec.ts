import SwaggerParser from '@apidevtools/swagger-parser';
import { load as loadYaml } from 'js-yaml';
import { randomUUID } from 'node:crypto';
import { DIRECTORY, type Directory } from '@app/directory';
import { idempotencyRequestHash } from '../../apps/gateway/src/transformations/idempotency';
import { openApiConformance, type OpenApiConformance } from '../support/openapi-conformance';
import { WebhookReceiver } from '../support/webhook-receiver';
import { ADMIN_TOKEN, call, reviewApi, setupOrganization, startService, upload, type Service } from '../support/service-harness';

const PUBLIC = '/openapi.json';
const ADMIN = '/admin/openapi.json';

/** Every response each public operation can give, by operation id (see apps/gateway/src/openapi/standard-responses.ts). */
const PUBLIC_RESPONSES: Record<string, string[]> = {
  'v1.transformations.file': ['201', '400', '401', '409', '413', '415', '422', '429', '500'],
  'v1.transformations.raw': ['201', '400', '401', '409', '413', '415', '422', '429', '500'],
  'v1.transformations.index': ['200', '401', '422', '429', '500'],
  'v1.transformations.show': ['200', '401', '404', '429', '500'],
  'v1.transformations.deliveries': ['200', '401', '404', '422', '429', '500'],
  'v1.providers.index': ['200', '401', '422', '429', '500'],
  'v1.providers.show': ['200', '401', '404', '429', '500'],
  'v1.schemas.index': ['200', '401', '422', '429', '500'],
  'v1.schemas.show': ['200', '401', '404', '429', '500'],
};

/** The admin API is not rate limited: no 429. Every method but GET may carry a body, so 400, 413 and 415 apply to all but the GET. */
const BODY_ERRORS = ['400', '413', '415'];
const ADMIN_RESPONSES: Record<string, string[]> = {
  'admin.organizations.create': ['201', ...BODY_ERRORS, '401', '422', '500'],
  'admin.invitations.create': ['201', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.apiKeys.index': ['200', '401', '404', '500'],
  'admin.apiKeys.create': ['201', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.apiKeys.revoke': ['204', ...BODY_ERRORS, '401', '404', '500'],
  'admin.webhook.update': ['200', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.webhook.rotateSecret': ['200', ...BODY_ERRORS, '401', '404', '500'],
  'admin.quota.update': ['200', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.schemas.create': ['201', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.schemas.update': ['200', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.schemas.delete': ['204', ...BODY_ERRORS, '401', '404', '500'],
  'admin.providers.create': ['201', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.providers.update': ['200', ...BODY_ERRORS, '401', '404', '422', '500'],
  'admin.providers.delete': ['204', ...BODY_ERRORS, '401', '404', '500'],
};

/** Every operation may also answer 503 (busy, shutting down), every admin one 429 (failed-authentication throttle): http/http-edge.ts. */
const withEdgeResponses = (table: Record<string, string[]>, extra: string[]) =>
  Object.fromEntries(Object.entries(table).map(([id, statuses]) => [id, [...statuses, ...extra]]));

const sorted = (xs: Iterable<string>) => [...xs].sort();
const responsesOf = (c: OpenApiConformance) =>
  Object.fromEntries(c.operations.map((o) => [o.operationId, sorted(Object.keys(o.operation.responses))]));
const sortedValues = (table: Record<string, string[]>) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k, sorted(v)]));
/** A concrete URL for a documented path: every `{parameter}` an unknown UUID. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, () => randomUUID());

/**
 * The routes Fastify serves, as `METHOD /path/{param}`, from its route tree. The HEAD
 * route Fastify adds beside every GET is left out: it is the GET without a body.
 */
function servedRoutes(svc: Service): string[] {
  const tree: string = svc.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const out = new Set<string>();
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack[depth] = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) {
      out.add(`${method} ${stack[depth].replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return sorted(out);
}

describe('OpenAPI documents', () => {
  let svc: Service;
  let pub: OpenApiConformance;
  let adm: OpenApiConformance;
  /** 429s come from a second service with a tiny rate limit (see below). */
  const seenElsewhere = new Set<string>();
  const seenAdminElsewhere = new Set<string>();
  beforeAll(async () => {
    svc = await startService();
    pub = await openApiConformance(svc.baseUrl, PUBLIC);
    adm = await openApiConformance(svc.baseUrl, ADMIN);
  });
  afterAll(() => svc.stop());
  const url = (p: string) => `${svc.baseUrl}${p}`;

  describe.each([
    ['public', PUBLIC, () => pub],
    ['admin', ADMIN, () => adm],
  ])('the %s document (%s)', (_name, path, doc) => {
    it('is valid OpenAPI 3.1: its schemas are strict JSON Schema 2020-12 and its examples fit them', async () => {
      const { document } = doc();
      expect(document.openapi).toBe('3.1.0');
      // swagger-parser checks the document's structure and references (on a copy: it dereferences in place)...
      await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
      // ...but not what is inside a schema: 3.0's `nullable` and `example` mean nothing in 3.1; strict Ajv refuses them.
      expect(JSON.stringify(document)).not.toMatch(/"nullable"|"example"\s*:/);
      expect(doc().schemaProblems()).toEqual([]);
    });

    it('declares every path parameter and has unique operation ids', () => {
      const { operations } = doc();
      expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
      for (const { path: p, operation } of operations) {
        const inPath = sorted([...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
        const declared = sorted((operation.parameters ?? []).filter((x: any) => x.in === 'path' && x.required).map((x: any) => x.name));
        expect({ path: p, params: declared }).toEqual({ path: p, params: inPath });
      }
    });

    it('is served as YAML too', async () => {
      const res = await fetch(url(path.replace('.json', '.yaml')));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/yaml/);
      expect(loadYaml(await res.text())).toEqual(doc().document);
    });
  });

  it('describes the public bearer credential as an API key issued by the admin API, not a JWT', () => {
    const schemes = pub.document.components.securitySchemes;
    expect(Object.keys(schemes)).toEqual(['apiKey']);
    expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.apiKey.bearerFormat).not.toMatch(/jwt/i);
    expect(schemes.apiKey.description).toMatch(/API key issued by the admin API/);
    for (const { operation } of pub.operations) expect(operation.security).toEqual([{ apiKey: [] }]);
  });

  it('describes the admin credential as the ADMIN_TOKEN, not a JWT', () => {
    const schemes = adm.document.components.securitySchemes;
    expect(Object.keys(schemes)).toEqual(['adminToken']);
    expect(schemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.adminToken.bearerFormat).not.toMatch(/jwt/i);
    expect(schemes.adminToken.description).toMatch(/ADMIN_TOKEN/);
    for (const { operation } of adm.operations) expect(operation.security).toEqual([{ adminToken: [] }]);
  });

  it('lists every response of every public operation: success, 401, 429, 500; 422 on the POSTs and lists; 404 on the shows; 400, 409, 413, 415 on the POSTs', () => {
    expect(responsesOf(pub)).toEqual(sortedValues(withEdgeResponses(PUBLIC_RESPONSES, ['503'])));
    for (const { operation } of pub.operations) {
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '429', '500']));
      expect(Object.keys(operation.responses).some((s) => /^2\d\d$/.test(s))).toBe(true);
    }
  });

  it('lists every response of every admin operation (no 429: the admin API is not rate limited)', () => {
    expect(responsesOf(adm)).toEqual(sortedValues(withEdgeResponses(ADMIN_RESPONSES, ['429', '503'])));
  });

  it("documents the admin successes' headers: the edge's, and Location on the creations of what the public API shows", () => {
    const components = adm.document.components;
    const resolve = (r: any) => (r.$ref ? components.responses[r.$ref.split('/').pop()] : r);
    const edge = ['X-Client-Request-Id', 'X-Frame-Options', 'X-Request-Id'];
    const located = ['admin.schemas.create', 'admin.providers.create'];
    const seen: string[] = [];
    for (const { operationId, operation } of adm.operations)
      for (const [status, ref] of Object.entries<any>(operation.responses)) {
        if (Number(status) >= 400) continue;
        const headers = resolve(ref).headers ?? {};
        const location = located.includes(operationId) && status === '201';
        expect({ operationId, status, headers: sorted(Object.keys(headers)) }).toEqual({
          operationId,
          status,
          headers: sorted([...edge, ...(location ? ['Location'] : [])]),
        });
        if (location) {
          expect(headers.Location).toMatchObject({ required: true, schema: { type: 'string', format: 'uri' } });
          seen.push(operationId);
        }
      }
    expect(sorted(seen)).toEqual(sorted(located));
  });

  it('documents the envelopes, examples and headers of the responses as the code sends them', () => {
    const components = pub.document.components;
    const resolve = (r: any) => (r.$ref ? components.responses[r.$ref.split('/').pop()] : r);
    const headerRequired = (h: any): boolean => (h.$ref ? components.headers[h.$ref.split('/').pop()] : h).required === true;
    const headerNames = (r: any) => sorted(Object.keys(r.headers ?? {}));
    const rateLimit = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    // On every answer (http/http-edge.ts).
    const edge = ['X-Client-Request-Id', 'X-Frame-Options', 'X-Request-Id'];
    for (const { operation } of pub.operations) {
      for (const [status, ref] of Object.entries<any>(operation.responses)) {
        const r = resolve(ref);
        if (Number(status) < 400) {
          // Past the API-key guard: the rate-limit headers are always there (a creation names its run, and a replay says so).
          const replay =
            operation.operationId.startsWith('v1.transformations.') && status === '201' ? ['Idempotent-Replayed', 'Location'] : [];
          expect(headerNames(r)).toEqual(sorted([...edge, ...rateLimit, ...replay]));
          continue;
        }
        const media = r.content['application/json'];
        expect(media.schema.$ref).toBe(`#/components/schemas/${status === '422' ? 'ValidationErrorEnvelope' : 'ErrorEnvelope'}`);
        expect(Object.keys(media.examples).length).toBeGreaterThan(0);
        expect(headerNames(r)).toContain('X-Request-Id');
        // Answered before the request is counted (no credential): no rate-limit headers.
        if (status === '401') expect(headerNames(r)).toEqual(sorted([...edge, 'WWW-Authenticate']));
        // Busy: counted before the body was refused (optional: shutting down answers before the key is looked at).
        if (status === '503') {
          expect(headerNames(r)).toEqual(sorted([...edge, 'Retry-After', ...rateLimit]));
          for (const name of rateLimit) expect({ name, required: headerRequired(r.headers[name]) }).toEqual({ name, required: false });
        }
        // Counted at the edge once the key is checked, before the body is read: an unreadable body's answer has them too
        // (a 400 only when the key was checked: a request without a Host header is refused before).
        if (['404', '409', '413', '415', '422', '429'].includes(status)) {
          expect(headerNames(r)).toEqual(expect.arrayContaining(rateLimit));
          // 429's are optional: the failed-authentication throttle's answer has none (below).
          if (status !== '429')
            for (const name of rateLimit)
              expect({ status, name, required: headerRequired(r.headers[name]) }).toEqual({ status, name, required: true });
        }
        if (status === '400') {
          expect(headerNames(r)).toEqual(sorted([...edge, ...rateLimit]));
          for (const name of rateLimit) expect({ name, required: headerRequired(r.headers[name]) }).toEqual({ name, required: false });
        }
      }
    }
    const tooMany = components.responses.TooManyRequests;
    expect(tooMany.headers['Retry-After']).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1 } });
    expect(Object.values<any>(tooMany.content['application/json'].examples).map((e) => e.value.error.code)).toEqual([
      'too_many_requests',
      'review_preparation_quota_exceeded',
      'too_many_failed_attempts',
    ]);
    // The contract defines 403 without attaching it to an operation; 409 is the POSTs' Idempotency-Key conflict, with Retry-After.
    expect(Object.keys(components.responses)).toEqual(expect.arrayContaining(['Forbidden', 'Conflict']));
    expect(components.responses.Conflict.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer', minimum: 1 } });
    for (const p of ['/v1/transformations/file', '/v1/transformations/raw']) {
      const post = pub.document.paths[p].post;
      expect(post.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]),
      );
      expect(post.responses['201'].headers['Idempotent-Replayed']).toMatchObject({ required: false });
    }
  });

  it('documents the list endpoints as pagination envelopes, the catalog shows as { data } and the run show bare', async () => {
    const doc: any = await SwaggerParser.dereference(structuredClone(pub.document));
    const ok = (p: string) => doc.paths[p].get.responses['200'].content['application/json'].schema;
    for (const [list, item] of [
      ['/v1/providers', ['created_at', 'id', 'model', 'model_label', 'name', 'provider', 'provider_label', 'updated_at']],
      ['/v1/schemas', ['created_at', 'fields', 'id', 'name', 'updated_at']],
    ] as const) {
      const envelope = ok(list);
      expect(sorted(envelope.required)).toEqual(['data', 'links', 'meta']);
      expect(envelope.properties.data.type).toBe('array');
      expect(sorted(envelope.properties.data.items.required)).toEqual(item);
      expect(sorted(envelope.properties.links.required)).toEqual(['first', 'last', 'next', 'prev']);
      for (const link of ['first', 'last', 'prev', 'next'])
        expect(envelope.properties.links.properties[link].type).toEqual(['string', 'null']);
      const meta = envelope.properties.meta;
      expect(sorted(meta.required)).toEqual(['current_page', 'from', 'last_page', 'links', 'path', 'per_page', 'to', 'total']);
      expect(meta.properties.from).toMatchObject({ type: ['integer', 'null'], minimum: 1 });
      expect(meta.properties.per_page).toMatchObject({ type: 'integer', minimum: 0 });
      expect(sorted(meta.properties.links.items.required)).toEqual(['active', 'label', 'url']);
      const show = ok(`${list}/{${list === '/v1/providers' ? 'provider' : 'schema'}}`);
      expect(show.required).toEqual(['data']);
      expect(sorted(show.properties.data.required)).toEqual(item);
    }
    const run = ok('/v1/transformations/{transformationRun}');
    expect(run.properties.data).toBeUndefined();
    expect(run.required).toEqual(expect.arrayContaining(['id', 'status', 'error', 'download_url', 'file_retention_until']));
    expect(run.required).not.toContain('upload');
    const created = (p: string) => doc.paths[p].post.responses['201'].content['application/json'].schema;
    expect(sorted(created('/v1/transformations/file').required)).toEqual([
      'id',
      'input_source',
      'review_url',
      'schema_id',
      'stage',
      'status',
      'upload',
    ]);
    expect(sorted(created('/v1/transformations/raw').required)).toEqual([
      'id',
      'input_source',
      'review_url',
      'schema_id',
      'stage',
      'status',
    ]);
    expect(created('/v1/transformations/raw').properties.upload).toBeUndefined();
  });

  describe('routes', () => {
    it('every /v1 and /admin/v1 route the service serves is in exactly one document, and each document has only its own', () => {
      const routes = (c: OpenApiConformance) => c.operations.map((o) => `${o.method.toUpperCase()} ${o.path}`);
      const served = servedRoutes(svc).filter((r) => /^\w+ \/(admin\/)?v1\//.test(r));
      expect(served.length).toBeGreaterThan(0);
      expect(sorted([...routes(pub), ...routes(adm)])).toEqual(served);
      expect(routes(pub).every((r) => / \/v1\//.test(r))).toBe(true);
      expect(routes(adm).every((r) => / \/admin\/v1\//.test(r))).toBe(true);
      // The hosted review page and the signed file URLs are served but documented nowhere (see openapi/public-document.ts).
      expect(servedRoutes(svc)).toContain('GET /review/{runId}/state');
      expect(svc.app.getHttpAdapter().getInstance().hasRoute({ method: 'PUT', url: '/files/*' })).toBe(true);
    });

    it('every documented operation is served: without a credential it answers 401, never the 404 of an unknown route', async () => {
      // An unknown route answers 404 before any guard runs, credential or not.
      expect(await call(url('/v1/no-such-route'))).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
      for (const c of [pub, adm]) {
        for (const { method, path } of c.operations) {
          const res = await c.call(url(concrete(path)), { method: method.toUpperCase() });
          expect({ route: `${method} ${path}`, status: res.status, code: res.body?.error?.code }).toEqual({
            route: `${method} ${path}`,
            status: 401,
            code: 'unauthenticated',
          });
        }
      }
    });
  });

  describe('real answers match the document', () => {
    let org: Awaited<ReturnType<typeof setupOrganization>>;
    let providerId: string;
    beforeAll(async () => {
      org = await setupOrganization(svc);
      const provider = await adm.call(url(`/admin/v1/organizations/${org.orgId}/providers`), {
        token: ADMIN_TOKEN,
        body: { name: 'Claude', provider: 'anthropic', model: 'claude-x', api_key: 'sk-ant-secret' },
      });
      expect(provider.status).toBe(201);
      providerId = provider.body.data.id;
    });
    const api = (p: string, init: Parameters<typeof call>[1] = {}) => pub.call(url(p), { token: org.apiKey, ...init });
    const until = async (id: string, done: (run: any) => boolean): Promise<any> => {
      for (const deadline = Date.now() + 15000; ;) {
        const res = await api(`/v1/transformations/${id}`);
        expect(res.status).toBe(200);
        if (done(res.body)) return res.body;
        if (Date.now() > deadline) throw new Error(`run ${id} did not get there: ${JSON.stringify(res.body)}`);
        await new Promise((r) => setTimeout(r, 30));
      }
    };

    it('a file run, created (201) and shown (200) awaiting its upload, in review, then final with a download', async () => {
      const created = await api('/v1/transformations/file', {
        body: { schema_id: org.schemaId, filename: 'people.csv', metadata: { batch: 7 }, column_labels: { age: 'Age' } },
      });
      expect(created.status).toBe(201);
      expect((await until(created.body.id, (r) => r.status === 'awaiting_upload')).upload).toBeDefined();
      expect((await upload(created.body, 'email,first_name,age\nann@x.io,Ann,34\n')).status).toBe(200);
      const ready = await until(created.body.id, (r) => r.review_state === 'active');
      expect(ready.mapping_rule).toMatchObject({ email: 'email' });
      expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
      const done = await until(created.body.id, (r) => r.stage === 'final' && r.status === 'completed');
      expect(done.download_url).toEqual(expect.any(String));
    });

    it('a failed run shows its error object', async () => {
      const created = await api('/v1/transformations/file', { body: { schema_id: org.schemaId, filename: 'empty.csv' } });
      expect(created.status).toBe(201);
      expect((await upload(created.body, '')).status).toBe(200);
      const failed = await until(created.body.id, (r) => r.status === 'failed');
      expect(failed.error).toMatchObject({ code: 'source_file_empty' });
    });

    it('a raw run (dry) is created (201) and shown (200)', async () => {
      const created = await api('/v1/transformations/raw', {
        body: { schema_id: org.schemaId, provider_id: providerId, content: 'Ann, ann@x.io, 34', dry_run: true, output_format: 'csv' },
      });
      expect(created.status).toBe(201);
      expect(created.body.upload).toBeUndefined();
      expect((await api(`/v1/transformations/${created.body.id}`)).body.input_source).toBe('raw');
    });

    it('422 from both POSTs and from the lists', async () => {
      for (const [p, body] of [
        ['/v1/transformations/file', { schema_id: 'nope', filename: 'x.pdf', dry_run: 'yes', metadata: [1] }],
        ['/v1/transformations/file', { schema_id: org.schemaId, filename: 'photo.png' }],
        ['/v1/transformations/raw', { schema_id: org.schemaId, content: 'x'.repeat(50001) }],
        ['/v1/transformations/raw', [1]],
      ] as const) {
        expect((await api(p, { body })).status).toBe(422);
      }
      expect((await api('/v1/transformations/raw', { raw: 'plain text', headers: { 'content-type': 'text/plain' } })).status).toBe(422);
      expect((await api('/v1/providers?per_page=101')).status).toBe(422);
      expect((await api('/v1/schemas?page=0')).status).toBe(422);
    });

    it("a run's webhook deliveries: a page of attempts (200) as documented, 404 for unknown and other organizations' runs, 422 on bad paging", async () => {
      const receiver = new WebhookReceiver();
      await receiver.start();
      try {
        receiver.plan = ['error'];
        const created = await api('/v1/transformations/file', {
          body: { schema_id: org.schemaId, filename: 'people.csv', notify_url: `${receiver.url}/hooks` },
        });
        expect(created.status).toBe(201);
        await upload(created.body, 'email,first_name,age\nann@x.io,Ann,34\n');
        const ready = await until(created.body.id, (r) => r.review_state === 'active');
        expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
        await receiver.waitFor(created.body.id, 1);
        const listed = await (async () => {
          for (const deadline = Date.now() + 15000; ;) {
            const res = await api(`/v1/transformations/${created.body.id}/deliveries`);
            expect(res.status).toBe(200);
            if (res.body.meta.total >= 1 || Date.now() > deadline) return res;
            await new Promise((r) => setTimeout(r, 30));
          }
        })();
        expect(listed.body.data[0]).toMatchObject({ event: 'transformation.finished', attempt: 1, status_code: 500, error: 'HTTP 500' });
        expect(listed.body.data[0].id).toBe(`${listed.body.data[0].delivery_id}:1`);
        const doc: any = await SwaggerParser.dereference(structuredClone(pub.document));
        const envelope =
          doc.paths['/v1/transformations/{transformationRun}/deliveries'].get.responses['200'].content['application/json'].schema;
        expect(sorted(envelope.required)).toEqual(['data', 'links', 'meta']);
        expect(envelope.properties.data.items.required).toEqual(
          expect.arrayContaining(['id', 'event', 'url', 'attempt', 'status_code', 'error', 'duration_ms', 'sent_at']),
        );
        expect((await api(`/v1/transformations/${created.body.id}/deliveries?per_page=101`)).status).toBe(422);
        expect((await api(`/v1/transformations/${created.body.id}/deliveries?page=0`)).status).toBe(422);
        expect((await api(`/v1/transformations/${randomUUID()}/deliveries`)).status).toBe(404);
        const other = await setupOrganization(svc);
        expect((await pub.call(url(`/v1/transformations/${created.body.id}/deliveries`), { token: other.apiKey })).status).toBe(404);
      } finally {
        await receiver.stop();
      }
    });

    it('Idempotency-Key on both POSTs: a replay (201, Idempotent-Replayed), a reused key (422), a key in use (409)', async () => {
      const directory = svc.app.get<Directory>(DIRECTORY);
      for (const [p, body] of [
        ['/v1/transformations/file', { schema_id: org.schemaId, filename: 'people.csv' }],
        ['/v1/transformations/raw', { schema_id: org.schemaId, provider_id: providerId, content: 'Ann', dry_run: true }],
      ] as const) {
        const key = randomUUID();
        const first = await api(p, { body, headers: { 'idempotency-key': key } });
        expect(first.status).toBe(201);
        const again = await api(p, { body, headers: { 'idempotency-key': key } });
        expect(again).toMatchObject({ status: 201, body: first.body });
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        const reused = await api(p, { body: { ...body, output_format: 'csv' }, headers: { 'idempotency-key': key } });
        expect(reused).toMatchObject({
          status: 422,
          body: { error: { code: 'validation_failed', fields: { 'Idempotency-Key': [expect.any(String)] } } },
        });
        // A request still holding its key (claimed here directly, as a concurrent request would).
        const busy = randomUUID();
        const now = Date.now();
        await directory.claimIdempotencyKey(
          {
            organization_id: org.orgId,
            key: busy,
            request_hash: idempotencyRequestHash(`POST ${p}`, body),
            resource_id: randomUUID(),
            state: 'pending',
            lock_token: randomUUID(),
            locked_until: new Date(now + 60_000).toISOString(),
            lock_instance: 'another-replica',
            lock_incarnation: randomUUID(),
            response_status: null,
            response_body: null,
            created_at: new Date(now).toISOString(),
            expires_at: new Date(now + 86_400_000).toISOString(),
          },
          new Date(now).toISOString(),
        );
        const inUse = await api(p, { body, headers: { 'idempotency-key': busy } });
        expect(inUse).toMatchObject({ status: 409, body: { error: { code: 'idempotency_key_in_use', type: 'conflict' } } });
        expect(inUse.headers.get('retry-after')).toBe('1');
      }
    });

    it('400, 413 and 415 from the POSTs once the key was checked; without a key, 401 and the body is not read', async () => {
      for (const p of ['/v1/transformations/file', '/v1/transformations/raw']) {
        const token = org.apiKey;
        expect((await pub.call(url(p), { token, raw: '{"schema_id":' })).status).toBe(400);
        expect((await pub.call(url(p), { token, raw: JSON.stringify({ content: 'x'.repeat(svc.config.maxJsonBodyBytes) }) })).status).toBe(
          413,
        );
        expect((await pub.call(url(p), { token, raw: '<run/>', headers: { 'content-type': 'application/xml' } })).status).toBe(415);
        for (const raw of ['{"schema_id":', JSON.stringify({ content: 'x'.repeat(svc.config.maxJsonBodyBytes) })]) {
          expect((await pub.call(url(p), { raw })).status).toBe(401);
        }
      }
    });

    it('401 from every public operation, without a key or with a wrong one', async () => {
      for (const { method, path } of pub.operations) {
        for (const token of [undefined, 'tsk_wrong']) {
          expect((await pub.call(url(concrete(path)), { method: method.toUpperCase(), token })).status).toBe(401);
        }
      }
    });

    it('404 from the shows', async () => {
      for (const p of [
        '/v1/transformations/not-a-uuid',
        `/v1/transformations/${randomUUID()}`,
        `/v1/providers/${randomUUID()}`,
        `/v1/schemas/nope`,
      ]) {
        expect((await api(p)).status).toBe(404);
      }
    });

    it('lists (full, paged, empty) and shows of providers and schemas', async () => {
      expect((await api('/v1/providers')).body.data).toHaveLength(1);
      expect((await api(`/v1/providers/${providerId}`)).body.data.id).toBe(providerId);
      const second = await adm.call(url(`/admin/v1/organizations/${org.orgId}/schemas`), {
        token: ADMIN_TOKEN,
        body: { name: 'Tiny', fields: { x: { description: 'x', data_type: 'string', is_required: false } } },
      });
      expect(second.status).toBe(201);
      expect((await api('/v1/schemas?page=2&per_page=1')).body.meta).toMatchObject({ current_page: 2, from: 2, to: 2, total: 2 });
      expect((await api('/v1/schemas?page=5&per_page=1')).body).toMatchObject({ data: [], meta: { from: null, to: null } });
      expect((await api(`/v1/schemas/${org.schemaId}`)).body.data.fields.email).toBeDefined();
      const other = await setupOrganization(svc);
      expect((await pub.call(url('/v1/providers'), { token: other.apiKey })).body.data).toEqual([]);
      // The organization's runs: a full page, a later empty page, and 422.
      expect((await api('/v1/transformations')).body.data.length).toBeGreaterThan(0);
      expect((await api('/v1/transformations?page=50')).body).toMatchObject({ data: [], meta: { from: null, to: null } });
      expect((await api('/v1/transformations?status=done')).status).toBe(422);
    });

    it('429 when the review-preparation quota is used up (no Retry-After: it does not reset with time)', async () => {
      const other = await setupOrganization(svc);
      const quota = await adm.call(url(`/admin/v1/organizations/${other.orgId}/quota`), {
        token: ADMIN_TOKEN,
        method: 'PUT',
        body: { review_preparations: 0 },
      });
      expect(quota.status).toBe(200);
      const res = await pub.call(url('/v1/transformations/file'), {
        token: other.apiKey,
        body: { schema_id: other.schemaId, filename: 'a.csv' },
      });
      expect(res).toMatchObject({ status: 429, body: { error: { code: 'review_preparation_quota_exceeded' } } });
      expect(res.headers.get('retry-after')).toBeNull();
    });

    it('every admin operation: success, 401, 404, 422, and 400/413/415', async () => {
      const admin = (p: string, init: Parameters<typeof call>[1] = {}) =>
        adm.call(url(`/admin/v1/organizations${p}`), { token: ADMIN_TOKEN, ...init });
      const created = await admin('', { body: { name: 'Globex', webhook_url: 'https://hooks.example.test/x' } });
      expect(created.status).toBe(201);
      const o = `/${created.body.id}`;
      expect(created.body.api_key_id).toEqual(expect.any(String));
      const key = await admin(`${o}/api-keys`, { method: 'POST' });
      expect(key.status).toBe(201);
      const keys = await admin(`${o}/api-keys`);
      expect(keys.status).toBe(200);
      expect(keys.body.data.map((k: { id: string }) => k.id)).toEqual([created.body.api_key_id, key.body.id]);
      expect((await admin(`${o}/api-keys/${key.body.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await admin(`${o}/webhook`, { method: 'PUT', body: { url: null } })).status).toBe(200);
      expect((await admin(`${o}/webhook/rotate-secret`, { method: 'POST' })).status).toBe(200);
      expect((await admin(`${o}/quota`, { method: 'PUT', body: { review_preparations: null } })).status).toBe(200);
      expect((await admin(`${o}/invitations`, { body: { email: 'owner@globex.example', role: 'owner' } })).status).toBe(201);
      const fields = {
        x: {
          description: 'x',
          data_type: 'date',
          is_required: true,
          format: 'yyyy-MM-dd',
          transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
        },
        price: {
          description: 'Price',
          data_type: 'number',
          is_required: false,
          number_format: { locale: 'de-DE', currency: true, percent: false },
        },
        share: { description: 'Share', data_type: 'number', is_required: false, number_format: { decimal: ',', group: '' } },
        phone: { description: 'Phone', data_type: 'phone', is_required: false, default_region: 'DE' },
        country: { description: 'Country', data_type: 'country', is_required: false, country_format: 'alpha3' },
        code: {
          description: 'Code',
          data_type: 'string',
          is_required: false,
          pattern: '^[A-Z]{2}\\d+$',
          min_length: 3,
          max_length: 9,
          unique: true,
        },
        qty: { description: 'Quantity', data_type: 'integer', is_required: false, min: 1, max: 99 },
        due: { description: 'Due', data_type: 'date', is_required: false, min: '2024-01-01', max: '2024-12-31' },
      };
      const schema = await admin(`${o}/schemas`, { body: { name: 'S', fields, unique_with: [['code', 'qty']] } });
      expect(schema.status).toBe(201);
      expect((await admin(`${o}/schemas/${schema.body.data.id}`, { method: 'PUT', body: { name: 'S2', fields } })).status).toBe(200);
      expect((await admin(`${o}/schemas/${schema.body.data.id}`, { method: 'DELETE' })).status).toBe(204);
      const provider = await admin(`${o}/providers`, { body: { name: 'P', provider: 'openai', model: 'gpt-x', model_label: 'GPT X' } });
      expect(provider.status).toBe(201);
      expect(
        (
          await admin(`${o}/providers/${provider.body.data.id}`, {
            method: 'PUT',
            body: { name: 'P2', provider: 'openai', model: 'gpt-y' },
          })
        ).status,
      ).toBe(200);
      expect((await admin(`${o}/providers/${provider.body.data.id}`, { method: 'DELETE' })).status).toBe(204);

      for (const { method, path, operation } of adm.operations) {
        const m = method.toUpperCase();
        const at = url(concrete(path));
        for (const token of [undefined, 'wrong']) expect((await adm.call(at, { method: m, token })).status).toBe(401);
        const withBody = m !== 'GET';
        if (operation.responses['404'])
          expect((await adm.call(at, { method: m, token: ADMIN_TOKEN, ...(withBody ? { body: {} } : {}) })).status).toBe(404);
        if (!withBody) continue; // a GET takes no body: no 422, 400, 413 or 415
        if (operation.responses['422']) {
          const target = path.includes('{id}') ? await freshTarget(path, created.body.id) : url(path.replace('{org}', created.body.id));
          expect((await adm.call(target, { method: m, token: ADMIN_TOKEN, body: { name: 5 } })).status).toBe(422);
        }
        expect((await adm.call(at, { method: m, token: ADMIN_TOKEN, raw: '{' })).status).toBe(400);
        expect(
          (await adm.call(at, { method: m, token: ADMIN_TOKEN, raw: JSON.stringify({ pad: 'x'.repeat(svc.config.maxJsonBodyBytes) }) }))
            .status,
        ).toBe(413);
        expect(
          (await adm.call(at, { method: m, token: ADMIN_TOKEN, raw: '<x/>', headers: { 'content-type': 'application/xml' } })).status,
        ).toBe(415);
      }
    });

    /** An existing schema or provider of the organization for the PUT that `path` names. */
    async function freshTarget(path: string, orgId: string): Promise<string> {
      const kind = path.includes('/schemas/') ? 'schemas' : 'providers';
      const body =
        kind === 'schemas'
          ? { name: 'T', fields: { x: { description: 'x', data_type: 'string', is_required: false } } }
          : { name: 'T', provider: 'openai', model: 'gpt-x' };
      const res = await adm.call(url(`/admin/v1/organizations/${orgId}/${kind}`), { token: ADMIN_TOKEN, body });
      return url(`/admin/v1/organizations/${orgId}/${kind}/${res.body.data.id}`);
    }
  });

  describe('rate limiting', () => {
    let limited: Service;
    let throttled: Service;
    afterAll(() => Promise.all([limited?.stop(), throttled?.stop()]));

    it('429 too_many_failed_attempts with Retry-After, from every operation of both documents, once an address failed too often', async () => {
      throttled = await startService({ AUTH_FAILURE_LIMIT: '1' });
      const at = (p: string) => `${throttled.baseUrl}${p}`;
      const p = await openApiConformance(throttled.baseUrl, PUBLIC);
      const a = await openApiConformance(throttled.baseUrl, ADMIN);
      expect((await a.call(at('/admin/v1/organizations'), { token: 'wrong', body: { name: 'x' } })).status).toBe(401);
      for (const c of [p, a]) {
        for (const { method, path } of c.operations) {
          const res = await c.call(at(concrete(path)), { method: method.toUpperCase(), token: ADMIN_TOKEN });
          expect(res).toMatchObject({ status: 429, body: { error: { code: 'too_many_failed_attempts' } } });
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }
      }
      p.seen.forEach((s) => seenElsewhere.add(s));
      a.seen.forEach((s) => seenAdminElsewhere.add(s));
    });

    it('429 with Retry-After and the rate-limit headers, from every public operation once the key is past its limit', async () => {
      limited = await startService({ RATE_LIMIT_PER_MINUTE: '2' });
      const c = await openApiConformance(limited.baseUrl, PUBLIC);
      const o = await setupOrganization(limited);
      const at = (p: string) => `${limited.baseUrl}${p}`;
      expect((await c.call(at('/v1/schemas'), { token: o.apiKey })).headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await c.call(at('/v1/providers'), { token: o.apiKey })).headers.get('x-ratelimit-remaining')).toBe('0');
      for (const { method, path } of c.operations) {
        const res = await c.call(at(concrete(path)), {
          method: method.toUpperCase(),
          token: o.apiKey,
          ...(method === 'post' ? { body: {} } : {}),
        });
        expect(res).toMatchObject({ status: 429, body: { error: { code: 'too_many_requests' } } });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      c.seen.forEach((s) => seenElsewhere.add(s));
    });
  });

  it('every documented response but 500 was seen above, and each matched the document', () => {
    const expected = (c: OpenApiConformance) =>
      c.operations.flatMap((o) =>
        Object.keys(o.operation.responses)
          .filter((s) => s !== '500' && s !== '503') // unexpected failures; busy or shutting down
          .map((s) => `${o.operationId} ${s}`),
      );
    expect(sorted(new Set([...pub.seen, ...seenElsewhere]))).toEqual(sorted(expected(pub)));
    expect(sorted(new Set([...adm.seen, ...seenAdminElsewhere]))).toEqual(sorted(expected(adm)));
  });
});
