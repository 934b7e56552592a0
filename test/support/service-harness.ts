import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppConfig, loadConfig } from '@app/config';
import { createHttpApp } from '../../apps/gateway/src/create-http-app';
import { StandaloneModule } from '../../apps/standalone/src/standalone.module';
import { track } from './suite-resources';

/** At least 32 characters: the service refuses to start with a shorter ADMIN_TOKEN. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef01';
/** SECRETS_KEY of services started in production mode (base64 of 32 bytes; a test value, never a real key). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

export interface Service {
  baseUrl: string;
  config: AppConfig;
  app: NestFastifyApplication;
  stop(): Promise<void>;
}

/** Starts the whole service (every app, one process, embedded adapters) on loopback. */
export async function startService(env: Record<string, string> = {}, dataDir?: string): Promise<Service> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'svc-'));
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    ADMIN_TOKEN,
    EVENT_STORE_POLL_MS: '50',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    // Tests' receivers and callback pages listen on loopback: let exactly those through the address guard.
    WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1,::1',
    // Tests' fake AI vendors listen on loopback too: the same for vendor calls.
    AI_ALLOWED_ADDRESSES: '127.0.0.1,::1',
    // Production requires a configured key for secrets at rest; elsewhere DATA_DIR/secrets.key is generated.
    ...(env.NODE_ENV === 'production' ? { SECRETS_KEY: TEST_SECRETS_KEY } : {}),
    WEBHOOK_POLL_MS: '25',
    // The log is the test output's noise; a test about the log sets its own level.
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await createHttpApp(StandaloneModule.forRoot(config) as never, { logger: false, readsSources: true });
  const stop = track(`service on port ${port}`, () => app.close());
  try {
    await app.listen(port, '127.0.0.1');
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl: `http://127.0.0.1:${port}`, config, app, stop };
}

/**
 * fetch that survives a restarted server: a pooled keep-alive connection to the previous
 * process can fail or stall once, so each try has a deadline and is repeated.
 */
export async function httpFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

export interface Json {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Json> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (init.raw !== undefined) {
    body = typeof init.raw === 'string' ? init.raw : new Uint8Array(init.raw);
    headers['content-type'] ??= 'application/json';
  } else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] = 'application/json';
  }
  const res = await httpFetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export const PEOPLE_FIELDS = {
  email: {
    description: 'Email address',
    data_type: 'email',
    is_required: true,
    label: 'Email',
    transformations: { lowercase: { enabled: true }, trim_whitespace: { enabled: true } },
  },
  first_name: { description: 'Given name', data_type: 'string', is_required: false, transformations: { uppercase: { enabled: true } } },
  age: { description: 'Age in years', data_type: 'integer', is_required: false },
  born: {
    description: 'Birth date',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
  },
};

/** An organization with a schema, through the admin API. */
export async function setupOrganization(svc: Service, fields: object = PEOPLE_FIELDS) {
  const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Acme' } });
  expect(org.status).toBe(201);
  const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.body.id}/schemas`, {
    token: ADMIN_TOKEN,
    body: { name: 'People', fields },
  });
  expect(schema.status).toBe(201);
  return { orgId: org.body.id as string, apiKey: org.body.api_key as string, schemaId: schema.body.data.id as string };
}

/**
 * The service and an organization with a schema, started before a suite's tests and the service stopped after them:
 * read `svc` and `org` inside the tests (they are set once `beforeAll` ran).
 */
export function serviceWithOrganization(): { readonly svc: Service; readonly org: Awaited<ReturnType<typeof setupOrganization>> } {
  const suite = {} as { svc: Service; org: Awaited<ReturnType<typeof setupOrganization>> };
  beforeAll(async () => {
    suite.svc = await startService();
    suite.org = await setupOrganization(suite.svc);
  });
  afterAll(() => suite.svc.stop());
  return suite;
}

/** Reads until `ok` holds (a projection or a delivery catching up); fails with the last value read after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`never got there: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until a URL answers 2xx (a process started in the background is up); `describe` says what failed to start. */
export async function untilAnswers(url: string, describe: () => string = () => url, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${describe()} did not answer`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls a run (through any service answering the public API, in this process or another) until `until` holds. */
export async function waitForRun(
  svc: Pick<Service, 'baseUrl'>,
  apiKey: string,
  runId: string,
  until: (run: any) => boolean,
  timeoutMs = 15000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(`${svc.baseUrl}/v1/transformations/${runId}`, { token: apiKey });
    expect(res.status).toBe(200);
    if (until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`Run did not reach the expected state; last: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

export async function upload(run: { upload: { url: string; method: string; headers: Record<string, string> } }, body: Buffer | string) {
  const res = await httpFetch(run.upload.url, {
    method: run.upload.method,
    headers: run.upload.headers,
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
}

/** The review link's own JSON calls, authorized by its signature. */
export function reviewApi(reviewUrl: string) {
  const u = new URL(reviewUrl);
  const at = (p: string) => `${u.origin}${u.pathname}/${p}${u.search}`;
  return {
    at,
    state: () => call(at('state')),
    edit: (mapping_rule: unknown, expected_mapping_version?: number) =>
      call(at('mapping'), { method: 'PUT', body: { mapping_rule, expected_mapping_version } }),
    preview: (mapping_rule?: unknown) => call(at('preview'), { method: 'POST', body: { mapping_rule } }),
    problems: (mapping_rule?: unknown, wait?: boolean) => call(at('problems'), { method: 'POST', body: { mapping_rule, wait } }),
    problemRows: (body: Record<string, unknown>) => call(at('problem-rows'), { method: 'POST', body }),
    approve: (mapping_rule?: unknown, rows_with_problems?: unknown) =>
      call(at('approve'), {
        method: 'POST',
        body: {
          ...(mapping_rule === undefined ? {} : { mapping_rule }),
          ...(rows_with_problems === undefined ? {} : { rows_with_problems }),
        },
      }),
    fix: (field: unknown, fix: unknown) => call(at('fixes'), { method: 'POST', body: { field, fix } }),
    undo: (expected_fixes?: unknown) =>
      call(at('fixes/undo'), { method: 'POST', body: expected_fixes === undefined ? {} : { expected_fixes } }),
    cancel: () => call(at('cancel'), { method: 'POST', body: {} }),
  };
}
