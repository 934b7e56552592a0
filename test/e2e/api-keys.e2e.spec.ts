import { runCli } from '../../apps/cli/src/cli-program';
import { EXIT } from '../../apps/cli/src/exit-codes';
import { ADMIN_TOKEN, call, httpFetch, startService, type Service } from '../support/service-harness';

/**
 * API keys have ids and optional names, are listed (id, prefix, name, created_at, revoked_at;
 * never the key or its hash) and revoked, the first one included; a revoked key is refused at once.
 */
describe('API keys: ids, listing, revocation', () => {
  let svc: Service;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(() => svc?.stop());
  const url = (p: string) => `${svc.baseUrl}${p}`;
  const admin = (p: string, init: Parameters<typeof call>[1] = {}) =>
    call(url(`/admin/v1/organizations${p}`), { token: ADMIN_TOKEN, ...init });
  const works = async (key: string) => (await call(url('/v1/schemas'), { token: key })).status;
  const createOrg = async (name = 'Keys') => {
    const org = await admin('', { body: { name } });
    expect(org.status).toBe(201);
    return org.body as { id: string; api_key: string; api_key_id: string };
  };

  it("returns the first key's id with the organization, and it can be revoked like any other", async () => {
    const org = await createOrg();
    expect(org.api_key_id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await admin(`/${org.id}/api-keys`, { method: 'POST' });
    expect(await works(org.api_key)).toBe(200);
    expect((await admin(`/${org.id}/api-keys/${org.api_key_id}`, { method: 'DELETE' })).status).toBe(204);
    // At once: the very next request with it is refused.
    expect(await call(url('/v1/schemas'), { token: org.api_key })).toMatchObject({
      status: 401,
      body: { error: { code: 'unauthenticated', message: 'The API key is invalid or was revoked.' } },
    });
    expect(await works(second.body.api_key)).toBe(200);
    expect((await admin(`/${org.id}/api-keys/${org.api_key_id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('a key revoked through one instance is refused on the very next request to another that had just accepted it', async () => {
    // A second service on the same data (as a second gateway replica): each keeps its own caches.
    const other = await startService({}, svc.config.dataDir);
    try {
      const org = await createOrg('Two instances');
      const onOther = () => call(`${other.baseUrl}/v1/schemas`, { token: org.api_key });
      for (let i = 0; i < 3; i++) expect((await onOther()).status).toBe(200);
      expect((await admin(`/${org.id}/api-keys/${org.api_key_id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await onOther()).status).toBe(401);
      expect(await works(org.api_key)).toBe(401);
    } finally {
      await other.stop();
    }
  });

  it('lists every key of the organization, revoked ones too, oldest first: id, prefix, name, created_at, revoked_at and nothing else', async () => {
    const org = await createOrg();
    const second = (await admin(`/${org.id}/api-keys`, { method: 'POST' })).body as { id: string; api_key: string };
    const third = (await admin(`/${org.id}/api-keys`, { method: 'POST' })).body as { id: string; api_key: string };
    expect((await admin(`/${org.id}/api-keys/${second.id}`, { method: 'DELETE' })).status).toBe(204);

    const res = await httpFetch(url(`/admin/v1/organizations/${org.id}/api-keys`), { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const { data } = JSON.parse(text) as { data: Array<Record<string, unknown>> };
    expect(data.map((k) => k.id)).toEqual([org.api_key_id, second.id, third.id]);
    for (const [k, key] of data.map((k, i) => [k, [org.api_key, second.api_key, third.api_key][i]] as const)) {
      expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'name', 'prefix', 'revoked_at']);
      expect(k.prefix).toBe(key.slice(4, 12));
      expect(Date.parse(k.created_at as string)).not.toBeNaN();
      // Neither the key nor anything past its prefix is in the answer.
      expect(text).not.toContain(key.slice(4, 13));
    }
    expect(data.map((k) => k.revoked_at === null)).toEqual([true, false, true]);
    expect(text).not.toMatch(/hash|api_key/);
  });

  it('issues a key with the name it is given (blanks around it dropped), or unnamed without one; a bad name is a 422 that issues nothing', async () => {
    const org = await createOrg('Named');
    const named = await admin(`/${org.id}/api-keys`, { method: 'POST', body: { name: '  Billing export ' } });
    expect(named.status).toBe(201);
    expect(named.body).toEqual({
      id: expect.any(String),
      api_key: expect.stringMatching(/^tsk_/),
      prefix: named.body.api_key.slice(4, 12),
      name: 'Billing export',
    });
    expect(await works(named.body.api_key)).toBe(200);
    const unnamed = await admin(`/${org.id}/api-keys`, { method: 'POST', body: { name: '   ' } });
    expect(unnamed).toMatchObject({ status: 201, body: { name: null } });
    const bad = async (body: unknown, field: string, message: RegExp) => {
      const res = await admin(`/${org.id}/api-keys`, { method: 'POST', body });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed' });
      expect(res.body.error.fields[field].join(' ')).toMatch(message);
    };
    await bad({ name: 'x'.repeat(101) }, 'name', /not be greater than 100 characters/);
    await bad({ name: 7 }, 'name', /must be a string/);
    await bad({ name: 'right\u202Eto left' }, 'name', /text direction overrides/);
    await bad(['Billing'], 'body', /object/);
    const listed = (await admin(`/${org.id}/api-keys`)).body.data as Array<{ id: string; name: string | null }>;
    expect(listed.map((k) => [k.id, k.name])).toEqual([
      [org.api_key_id, null],
      [named.body.id, 'Billing export'],
      [unnamed.body.id, null],
    ]);
  });

  it("lists nothing of another organization's keys; unknown organizations and keys are 404", async () => {
    const a = await createOrg('A');
    const b = await createOrg('B');
    expect((await admin(`/${a.id}/api-keys`)).body.data.map((k: { id: string }) => k.id)).toEqual([a.api_key_id]);
    expect((await admin(`/${a.id}/api-keys/${b.api_key_id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await works(b.api_key)).toBe(200);
    expect(await admin('/00000000-0000-4000-8000-000000000000/api-keys')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'The requested organization was not found.' } },
    });
    expect((await call(url(`/admin/v1/organizations/${a.id}/api-keys`))).status).toBe(401);
  });

  it('key:list prints the list through the admin API (CLI)', async () => {
    const org = await createOrg('CLI');
    const env = { SERVICE_URL: process.env.SERVICE_URL, ADMIN_TOKEN: process.env.ADMIN_TOKEN };
    const printed: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      process.env.SERVICE_URL = svc.baseUrl;
      process.env.ADMIN_TOKEN = ADMIN_TOKEN;
      expect(await runCli(['key:list', org.id])).toBe(EXIT.ok);
      expect(JSON.parse(printed.join('\n'))).toEqual({
        data: [{ id: org.api_key_id, prefix: org.api_key.slice(4, 12), name: null, created_at: expect.any(String), revoked_at: null }],
      });
      expect(await runCli(['key:list', '00000000-0000-4000-8000-000000000000'])).toBe(EXIT.failed);
      printed.length = 0;
      expect(await runCli(['key:create', org.id, '--name', 'From the CLI'])).toBe(EXIT.ok);
      expect(JSON.parse(printed.join('\n'))).toMatchObject({ api_key: expect.stringMatching(/^tsk_/), name: 'From the CLI' });
    } finally {
      log.mockRestore();
      error.mockRestore();
      for (const [name, value] of Object.entries(env)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
