#!/usr/bin/env node
/**
 * Chaos: many file runs at once while the service is killed with SIGKILL at random moments and
 * started again on the same data, clients retrying as docs/api.md tells them to (the same
 * Idempotency-Key on a retried create, the same bytes on a re-sent upload, polling). At the end:
 * every run exists once, was approved and finished with the right rows, and its
 * transformation.finished webhook arrived at least once.
 *
 *   npm run bench:chaos                        # one process (standalone), killed whole
 *   BENCH_CHAOS_MODE=apps npm run bench:chaos  # one process per app, one app killed at a time
 *
 * BENCH_CHAOS_RUNS (default 200), BENCH_CHAOS_CONCURRENCY (25), BENCH_CHAOS_MINUTES (8, the limit),
 * BENCH_CHAOS_KILL_MS ("2000-6000": the pause between kills). Traffic stays on 127.0.0.1; every
 * child is killed when the bench ends. Exits 1 on any lost, duplicated or wrong run or lost webhook.
 */
const { spawn } = require('node:child_process');
const { createServer } = require('node:http');
const { mkdtempSync, readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const ROOT = join(__dirname, '..');
const MODE = process.env.BENCH_CHAOS_MODE === 'apps' ? 'apps' : 'standalone';
const RUNS = Number(process.env.BENCH_CHAOS_RUNS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CHAOS_CONCURRENCY ?? 25);
const DEADLINE = Date.now() + Number(process.env.BENCH_CHAOS_MINUTES ?? 8) * 60_000;
const [KILL_MIN, KILL_MAX] = (process.env.BENCH_CHAOS_KILL_MS ?? '2000-6000').split('-').map(Number);
const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef0123';
const HEAP_MB = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).config.heap_mb;
const WORKERS = ['projector', 'ingestion', 'mapping', 'output', 'notifier'];

const dataDir = mkdtempSync(join(tmpdir(), 'chaos-'));
const children = new Map();
let port = 0;
let stopping = false;
const base = () => `http://127.0.0.1:${port}`;
const stats = { kills: 0, retries: 0, errors: {} };
const countError = (what) => {
  stats.retries++;
  stats.errors[what] = (stats.errors[what] ?? 0) + 1;
};

// ---- the service's processes ---------------------------------------------------------------
function start(app) {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    PUBLIC_BASE_URL: base(),
    EVENT_STORE_POLL_MS: '50',
    WEBHOOK_POLL_MS: '100',
    WEBHOOK_RETRY_DELAYS_MS: '200,1000',
    WEBHOOK_MAX_ATTEMPTS: '5',
    WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_FAILURE_LIMIT: '0',
    LOG_LEVEL: 'error',
    // The same name after each restart: the new process takes back at once what the killed one held.
    INSTANCE_ID: `chaos-${app}`,
  };
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, join(ROOT, `dist/apps/${app}/src/main.js`)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.set(app, child);
}

async function kill(app) {
  const child = children.get(app);
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  children.delete(app);
}

async function killEverything() {
  stopping = true;
  await Promise.all([...children.keys()].map(kill));
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    void killEverything().then(() => process.exit(130));
  });

async function untilHealthy(timeoutMs = 30_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) {
    try {
      if ((await fetch(`${base()}/healthz`)).ok) return;
    } catch {
      /* not up yet */
    }
  }
  throw new Error('the service did not come back');
}

/** Kills at random moments: the whole service (standalone), or one app at a time. */
async function chaosMonkey() {
  const apps = MODE === 'apps' ? ['gateway', ...WORKERS] : ['standalone'];
  while (!stopping) {
    await sleep(KILL_MIN + Math.random() * (KILL_MAX - KILL_MIN));
    if (stopping) return;
    const victim = apps[Math.floor(Math.random() * apps.length)];
    await kill(victim);
    stats.kills++;
    await sleep(Math.random() * 300);
    start(victim);
    if (victim === 'standalone' || victim === 'gateway') await untilHealthy().catch(() => undefined);
  }
}

// ---- a careful client ----------------------------------------------------------------------
async function request(method, path, { token, body, raw, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload;
  if (raw !== undefined) payload = raw;
  else if (body !== undefined) {
    h['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path.startsWith('http') ? path : `${base()}${path}`, {
    method,
    headers: h,
    body: payload,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: json, text };
}

/** Calls until `done(answer)` says so; network errors, 5xx, 429 and the listed codes are retried with back-off. */
async function retrying(what, call, done = (r) => r.status < 400, retryCodes = []) {
  for (let attempt = 0; ; attempt++) {
    if (Date.now() > DEADLINE) throw new Error(`${what}: out of time`);
    try {
      const r = await call();
      if (done(r)) return r;
      if (r.status < 300) {
        // Not there yet (polling): look again shortly.
        await sleep(100);
        attempt = -1;
        continue;
      }
      const code = r.body?.error?.code;
      if (r.status < 500 && r.status !== 429 && !retryCodes.includes(code)) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
      countError(`${what} ${r.status}${code ? ` ${code}` : ''}`);
    } catch (err) {
      if (String(err.message).startsWith(`${what}:`)) throw err;
      countError(`${what} network`);
    }
    await sleep(Math.min(2000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
  }
}

const csvOf = (i) => `Email,Age\n${Array.from({ length: 5 }, (_, k) => `user${i}-${k}@example.com,${20 + k}`).join('\n')}\n`;

async function oneRun(i, org) {
  const key = `chaos-run-${i}`;
  const created = await retrying(
    'create',
    () =>
      request('POST', '/v1/transformations/file', {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: `people-${i}.csv`, metadata: { chaos: i } },
        headers: { 'idempotency-key': key },
      }),
    (r) => r.status === 201,
    ['idempotency_key_in_use'],
  );
  const run = created.body;
  const csv = csvOf(i);
  await retrying(
    'upload',
    () => request(run.upload.method, run.upload.url, { raw: csv, headers: run.upload.headers }),
    (r) => r.status >= 200 && r.status < 300,
  );
  const poll = async (until, what) =>
    retrying(
      what,
      () => request('GET', `/v1/transformations/${run.id}`, { token: org.apiKey }),
      (r) => {
        if (r.status === 200 && r.body.status === 'failed')
          throw new Error(`${what}: run ${run.id} failed: ${JSON.stringify(r.body.error)}`);
        return r.status === 200 && until(r.body);
      },
    );
  const ready = await poll((r) => r.review_state === 'active' && r.status === 'completed', 'wait for review');
  const review = new URL(ready.body.review_url);
  await retrying(
    'approve',
    () => request('POST', `${review.origin}${review.pathname}/approve${review.search}`, { body: {} }),
    (r) => r.status === 200 || (r.status === 409 && /approved/.test(r.text)),
  );
  const final = await poll((r) => r.stage === 'final' && r.status === 'completed' && r.download_url, 'wait for output');
  const output = await retrying(
    'download',
    () => request('GET', final.body.download_url),
    (r) => r.status === 200,
  );
  const rows = Array.isArray(output.body) ? output.body : (output.body?.data ?? []);
  const emails = rows.map((r) => r.email);
  const expected = Array.from({ length: 5 }, (_, k) => `user${i}-${k}@example.com`);
  if (JSON.stringify(emails) !== JSON.stringify(expected)) throw new Error(`run ${run.id}: output ${JSON.stringify(rows).slice(0, 300)}`);
  return run.id;
}

// ---- the bench -------------------------------------------------------------------------------
async function main() {
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.headers['x-service-event'] === 'transformation.finished') finished.add(req.headers['x-service-id']);
      res.writeHead(200).end('ok');
    });
  });
  const finished = new Set();
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

  port = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  start(MODE === 'apps' ? 'gateway' : 'standalone');
  await untilHealthy();
  if (MODE === 'apps') for (const app of WORKERS) start(app);

  const orgRes = await request('POST', '/admin/v1/organizations', { token: ADMIN_TOKEN, body: { name: 'Chaos', webhook_url: hookUrl } });
  const schema = await request('POST', `/admin/v1/organizations/${orgRes.body.id}/schemas`, {
    token: ADMIN_TOKEN,
    body: {
      name: 'People',
      fields: {
        email: { description: 'E-mail', data_type: 'email', is_required: true },
        age: { description: 'Age', data_type: 'integer', is_required: false },
      },
    },
  });
  const org = { id: orgRes.body.id, apiKey: orgRes.body.api_key, schemaId: schema.body.data.id };

  const started = Date.now();
  const monkey = chaosMonkey();
  const results = new Map();
  const failures = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        const i = next++;
        try {
          results.set(i, await oneRun(i, org));
        } catch (err) {
          failures.push(`run ${i}: ${err.message}`);
        }
      }
    }),
  );
  stopping = true;
  await monkey;
  // Every process up again, then the webhooks still owed get their time.
  for (const app of MODE === 'apps' ? ['gateway', ...WORKERS] : ['standalone']) if (!children.has(app)) start(app);
  await untilHealthy();
  const ids = [...results.values()];
  for (const deadline = Date.now() + 60_000; ids.some((id) => !finished.has(id)) && Date.now() < deadline;) await sleep(200);

  const listed = await retrying('list', () => request('GET', '/v1/transformations?per_page=1', { token: org.apiKey }));
  const lostHooks = ids.filter((id) => !finished.has(id));
  const duplicates = listed.body.meta.total - RUNS;
  const summary = {
    mode: MODE,
    runs: RUNS,
    concurrency: CONCURRENCY,
    completed: ids.length,
    failed: failures.length,
    runs_in_the_service: listed.body.meta.total,
    duplicate_runs: duplicates,
    finished_webhooks_missing: lostHooks.length,
    kills: stats.kills,
    client_retries: stats.retries,
    seconds: Math.round((Date.now() - started) / 1000),
    retried: stats.errors,
  };
  console.log(JSON.stringify(summary, null, 2));
  for (const f of failures.slice(0, 10)) console.error(f);
  await killEverything();
  receiver.close();
  process.exit(failures.length === 0 && duplicates === 0 && lostHooks.length === 0 ? 0 : 1);
}

main().catch(async (err) => {
  console.error(err);
  await killEverything();
  process.exit(1);
});
