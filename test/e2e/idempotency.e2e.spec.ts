import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { DIRECTORY, type Directory, type IdempotencyRecord } from '@app/directory';
import { processHolder } from '@app/leases';
import { idempotencyRequestHash } from '../../apps/gateway/src/transformations/idempotency';
import { ADMIN_TOKEN, call, setupOrganization, startService, type Service } from '../support/service-harness';

/**
 * `Idempotency-Key` on POST /v1/transformations/file and /raw (docs/api.md, "Idempotency"):
 * the same key and request within 24 hours answer with the first 201 and create nothing;
 * another request with the key is 422; a request still running holds the key (409); keys
 * are per organization and survive a restart.
 */
describe('Idempotency-Key on the run-creating POSTs', () => {
  let svc: Service;
  let a: Awaited<ReturnType<typeof setupOrganization>>;
  let b: Awaited<ReturnType<typeof setupOrganization>>;
  let providerId: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'idem-'));
  beforeAll(async () => {
    svc = await startService({}, dataDir);
    a = await setupOrganization(svc);
    b = await setupOrganization(svc);
    const provider = await call(`${svc.baseUrl}/admin/v1/organizations/${a.orgId}/providers`, {
      token: ADMIN_TOKEN,
      body: { name: 'P', provider: 'openai', model: 'gpt-x' },
    });
    providerId = provider.body.data.id;
  });
  afterAll(() => svc?.stop());

  const FILE = '/v1/transformations/file';
  const RAW = '/v1/transformations/raw';
  const url = (p: string) => `${svc.baseUrl}${p}`;
  const fileBody = (extra: object = {}) => ({ schema_id: a.schemaId, filename: 'people.csv', metadata: { n: 1 }, ...extra });
  const post = (path: string, key: string | undefined, body: unknown, token = a.apiKey) =>
    call(url(path), { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const directory = () => svc.app.get<Directory>(DIRECTORY);
  /** How many runs the event store holds for an organization. */
  const runsOf = async (orgId: string) =>
    (await svc.app.get<EventStore>(EVENT_STORE).readAll(0, 1_000_000)).filter(
      (e) => e.type === 'RunCreated' && (e.data as { organization_id: string }).organization_id === orgId,
    ).length;
  /** A record as a request of organization a would have left it. */
  const record = (over: Partial<IdempotencyRecord> & Pick<IdempotencyRecord, 'key' | 'request_hash'>): IdempotencyRecord => {
    const now = Date.now();
    return {
      organization_id: a.orgId,
      resource_id: randomUUID(),
      state: 'pending',
      lock_token: randomUUID(),
      locked_until: new Date(now + 60_000).toISOString(),
      // Held by a live request on another replica unless a test says otherwise.
      lock_instance: 'another-replica',
      lock_incarnation: randomUUID(),
      response_status: null,
      response_body: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 86_400_000).toISOString(),
      ...over,
    };
  };

  it('the same key and request answer with the first 201 (same body, Idempotent-Replayed: true) and create one run', async () => {
    for (const [path, body] of [
      [FILE, fileBody()],
      [RAW, { schema_id: a.schemaId, provider_id: providerId, content: 'Ann', dry_run: true }],
    ] as const) {
      const before = await runsOf(a.orgId);
      const key = randomUUID();
      const first = await post(path, key, body);
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      // The 201 names the run it created (RFC 9110), the replay the same one.
      expect(first.headers.get('location')).toBe(url(`/v1/transformations/${first.body.id}`));
      expect((await call(first.headers.get('location')!, { token: a.apiKey })).body.id).toBe(first.body.id);
      for (let i = 0; i < 2; i++) {
        const again = await post(path, key, body);
        expect(again.status).toBe(201);
        expect(again.body).toEqual(first.body);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('location')).toBe(first.headers.get('location'));
        // A new request: its own request id and rate-limit headers.
        expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
        expect(again.headers.get('x-ratelimit-remaining')).toEqual(expect.any(String));
      }
      expect(await runsOf(a.orgId)).toBe(before + 1);
    }
  });

  it('the same data with other whitespace or member order is the same request', async () => {
    const key = randomUUID();
    const first = await post(FILE, key, fileBody({ output_format: 'csv' }));
    const raw = `{ "output_format" : "csv", "metadata": {"n":1},\n "filename":"people.csv", "schema_id":"${a.schemaId}" }`;
    const again = await call(url(FILE), { token: a.apiKey, raw, headers: { 'idempotency-key': key } });
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the key with another body or on the other endpoint is 422 validation_failed naming the header, as every 422 of the spec; the first answer stays', async () => {
    const key = randomUUID();
    const first = await post(FILE, key, fileBody());
    const before = await runsOf(a.orgId);
    for (const [path, body] of [
      [FILE, fileBody({ metadata: { n: 2 } })],
      [FILE, fileBody({ dry_run: true })],
      [RAW, { schema_id: a.schemaId, provider_id: providerId, content: 'Ann', dry_run: true }],
    ] as const) {
      const res = await post(path, key, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({
        code: 'validation_failed',
        type: 'validation',
        message: 'The given data was invalid.',
        fields: { 'Idempotency-Key': [expect.stringContaining('different request')] },
      });
    }
    expect(await runsOf(a.orgId)).toBe(before);
    expect(await post(FILE, key, fileBody())).toMatchObject({ status: 201, body: first.body });
  });

  it('keys are scoped to the organization: another organization with the same key gets its own run', async () => {
    const key = randomUUID();
    const mine = await post(FILE, key, fileBody());
    const theirs = await post(FILE, key, { schema_id: b.schemaId, filename: 'people.csv', metadata: { n: 1 } }, b.apiKey);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // ...and a's other keys (a new API key of the same organization) share a's keys.
    const key2 = await call(url(`/admin/v1/organizations/${a.orgId}/api-keys`), { token: ADMIN_TOKEN, method: 'POST' });
    const again = await post(FILE, key, fileBody(), key2.body.api_key);
    expect(again).toMatchObject({ status: 201, body: mine.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a key is 1 to 255 printable ASCII characters; otherwise 422 on Idempotency-Key and nothing is created', async () => {
    expect((await post(FILE, 'k'.repeat(255), fileBody())).status).toBe(201);
    const before = await runsOf(a.orgId);
    for (const key of ['k'.repeat(256), '', 'caf\u00e9', 'a\tb']) {
      const res = await post(FILE, key, fileBody());
      expect({ key, status: res.status, code: res.body.error?.code }).toEqual({ key, status: 422, code: 'validation_failed' });
      expect(Object.keys(res.body.error.fields)).toEqual(['Idempotency-Key']);
    }
    expect(await runsOf(a.orgId)).toBe(before);
  });

  it('the header sent twice is 422 on Idempotency-Key, not one key "x, y" (Node joins the two lines), and nothing is created', async () => {
    const before = await runsOf(a.orgId);
    const payload = JSON.stringify(fileBody());
    const answer = await new Promise<{ status: number; body: { error?: { fields?: Record<string, string[]> } } }>((resolve, reject) => {
      const u = new URL(url(FILE));
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: u.port,
          path: u.pathname,
          method: 'POST',
          agent: false,
          // An array: two header lines.
          headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json', 'idempotency-key': ['x', 'y'] },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
    expect([answer.status, answer.body.error?.fields]).toEqual([422, { 'Idempotency-Key': ['Send the Idempotency-Key header once.'] }]);
    expect(await runsOf(a.orgId)).toBe(before);
  });

  it('a refused request (validation, quota) frees its key; a later success binds it', async () => {
    const key = randomUUID();
    const invalid = fileBody({ filename: 'people.pdf' });
    expect((await post(FILE, key, invalid)).body.error.code).toBe('validation_failed');
    expect((await post(FILE, key, invalid)).body.error.code).toBe('validation_failed');
    const ok = await post(FILE, key, fileBody({ filename: 'fixed.csv' }));
    expect(ok.status).toBe(201);
    expect((await post(FILE, key, invalid)).body.error.fields).toEqual({
      'Idempotency-Key': [expect.stringContaining('different request')],
    });

    const quotaKey = randomUUID();
    await call(url(`/admin/v1/organizations/${b.orgId}/quota`), { token: ADMIN_TOKEN, method: 'PUT', body: { review_preparations: 0 } });
    const bBody = { schema_id: b.schemaId, filename: 'q.csv' };
    expect((await post(FILE, quotaKey, bBody, b.apiKey)).status).toBe(429);
    await call(url(`/admin/v1/organizations/${b.orgId}/quota`), { token: ADMIN_TOKEN, method: 'PUT', body: { review_preparations: null } });
    expect((await post(FILE, quotaKey, bBody, b.apiKey)).status).toBe(201);
  });

  it('concurrent requests with one key: one creates the run, the others get 409 idempotency_key_in_use or the replay', async () => {
    const before = await runsOf(a.orgId);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(FILE, key, fileBody())));
    const created = answers.filter((r) => r.status === 201);
    const conflicts = answers.filter((r) => r.status === 409);
    expect(created.length + conflicts.length).toBe(answers.length);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const c of conflicts) {
      expect(c.body.error).toMatchObject({ code: 'idempotency_key_in_use', type: 'conflict' });
      expect(c.headers.get('retry-after')).toBe('1');
    }
    expect(await runsOf(a.orgId)).toBe(before + 1);
  });

  it('409 while another request holds the key; nothing is created', async () => {
    const key = randomUUID();
    await directory().claimIdempotencyKey(
      record({ key, request_hash: idempotencyRequestHash(`POST ${FILE}`, fileBody()) }),
      new Date().toISOString(),
    );
    const before = await runsOf(a.orgId);
    expect(await post(FILE, key, fileBody())).toMatchObject({ status: 409, body: { error: { code: 'idempotency_key_in_use' } } });
    expect(await runsOf(a.orgId)).toBe(before);
  });

  it('after a failed or abandoned attempt, a retry creates the run under the id the key was given, or answers with it', async () => {
    // The attempt failed before the run existed (its lock lifted or lapsed): the retry creates the run with the reserved id.
    const reserved = randomUUID();
    const key = randomUUID();
    const hash = idempotencyRequestHash(`POST ${FILE}`, fileBody());
    await directory().claimIdempotencyKey(
      record({ key, request_hash: hash, resource_id: reserved, locked_until: null }),
      new Date().toISOString(),
    );
    const retried = await post(FILE, key, fileBody());
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(reserved);
    expect(await post(FILE, key, fileBody())).toMatchObject({ status: 201, body: retried.body });

    // The attempt created the run but its answer was lost: the retry answers with that run and creates nothing.
    const existing = await post(FILE, undefined, fileBody());
    const lost = randomUUID();
    await directory().claimIdempotencyKey(
      record({ key: lost, request_hash: hash, resource_id: existing.body.id, locked_until: new Date(Date.now() - 1000).toISOString() }),
      new Date().toISOString(),
    );
    const before = await runsOf(a.orgId);
    const answer = await post(FILE, lost, fileBody());
    expect(answer).toMatchObject({ status: 201, body: { id: existing.body.id, status: 'awaiting_upload', upload: existing.body.upload } });
    expect(await runsOf(a.orgId)).toBe(before);
  });

  it('a key held by a request that died with its process is free at once once the process is started again; one run', async () => {
    // Left by this instance's previous start (it was killed while creating the run): locked for another minute.
    const reserved = randomUUID();
    const key = randomUUID();
    const hash = idempotencyRequestHash(`POST ${FILE}`, fileBody());
    await directory().claimIdempotencyKey(
      record({
        key,
        request_hash: hash,
        resource_id: reserved,
        lock_instance: processHolder.instance,
        lock_incarnation: 'an earlier start',
      }),
      new Date().toISOString(),
    );
    const before = await runsOf(a.orgId);
    const retried = await post(FILE, key, fileBody());
    expect(retried).toMatchObject({ status: 201, body: { id: reserved } });
    expect(await post(FILE, key, fileBody())).toMatchObject({ status: 201, body: retried.body });
    expect(await runsOf(a.orgId)).toBe(before + 1);
  });

  it('a key lives 24 hours from its first use; an expired one is free for any request', async () => {
    const key = randomUUID();
    await post(FILE, key, fileBody());
    const stored = await directory().claimIdempotencyKey(record({ key, request_hash: 'another request' }), new Date().toISOString());
    expect(stored.claimed).toBe(false);
    expect(Date.parse(stored.record.expires_at) - Date.parse(stored.record.created_at)).toBe(24 * 60 * 60 * 1000);

    const old = randomUUID();
    const dayAgo = Date.now() - 86_400_000;
    await directory().claimIdempotencyKey(
      record({
        key: old,
        request_hash: 'an old request',
        state: 'completed',
        response_status: 201,
        response_body: '{"id":"old"}',
        created_at: new Date(dayAgo).toISOString(),
        expires_at: new Date(dayAgo + 86_400_000 - 1).toISOString(),
      }),
      new Date(dayAgo).toISOString(),
    );
    const fresh = await post(FILE, old, fileBody());
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe('old');
  });

  it('keys survive a restart', async () => {
    const key = randomUUID();
    const first = await post(RAW, key, { schema_id: a.schemaId, provider_id: providerId, content: 'Ann', dry_run: true });
    expect(first.status).toBe(201);
    await svc.stop();
    svc = await startService({}, dataDir);
    const again = await post(RAW, key, { schema_id: a.schemaId, provider_id: providerId, content: 'Ann', dry_run: true });
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});
