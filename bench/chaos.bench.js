#!/usr/bin/env node
/**
 * Chaos: many file runs at once while the service is killed with SIGKILL at random moments and
 * started again on the same data, clients retrying as docs/api.md tells them to (the same
 * Idempotency-Key on a retried create, the same bytes on a re-sent upload, polling, approval
 * through the review link's API, the download). At the end it checks, and exits 1 on any miss:
 *
 *  - every client finished its run, and the output's rows are exactly the file's (every field);
 *  - the organization holds exactly one run per Idempotency-Key (`GET /v1/transformations`, every
 *    page, grouped by the run's metadata), the one the client saw, completed in stage final;
 *  - every run's `transformation.finished` webhook arrived at least once, under one `webhook-id`
 *    (one finished event per run), correctly signed, with the final state; no other event came;
 *  - the event store holds each step of each run once (RunCreated, SourceUploaded, SourceParsed,
 *    ReviewPrepared, ReviewApproved, OutputProduced, the finished WebhookScheduled; no RunFailed);
 *  - every process answers /readyz once the kills stop.
 *
 *   npm run bench:chaos                        # one process (standalone), killed whole
 *   BENCH_CHAOS_MODE=apps npm run bench:chaos  # one process per app, one app killed at a time
 *
 * BENCH_CHAOS_RUNS (default 300), BENCH_CHAOS_CONCURRENCY (50), BENCH_CHAOS_MINUTES (8, the limit
 * for the runs; the final checks get 2 more), BENCH_CHAOS_KILL_MS ("2000-6000": the pause between
 * kills), BENCH_CHAOS_ROWS (5: rows per file; more make each step long enough to be killed in
 * its middle), BENCH_CHAOS_BOOT_KILLS (0.2: the share of kills that strike the victim again while it
 * starts, before it answers), BENCH_CHAOS_IMPATIENT (0.05: the share of client requests the client
 * cuts after 0-300 ms and retries, as after a timeout, so that a retried create can meet its first
 * attempt still running), BENCH_CHAOS_HOOK_FAIL (0.1: the share of webhook attempts the receiver
 * answers 503 after 0-300 ms; the others get 200 after 0-100 ms), BENCH_CHAOS_FRESH_NAMES=1 (each
 * restart under a new INSTANCE_ID, as a replaced pod: what the dead one held is freed by time), BENCH_CHAOS_KEEP=1 keeps the data and log directories. Traffic stays on 127.0.0.1; every
 * child is killed when the bench ends, on SIGINT/SIGTERM too. The children's output (LOG_LEVEL=error)
 * goes to a log directory, kept when something failed; the summary counts its lines per app.
 */
const { spawn } = require('node:child_process');
const { createServer } = require('node:http');
const { mkdtempSync, readFileSync, rmSync, openSync, closeSync, readdirSync, statSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const Database = require('better-sqlite3');
const { Webhook } = require('standardwebhooks');

const ROOT = join(__dirname, '..');
const MODE = process.env.BENCH_CHAOS_MODE === 'apps' ? 'apps' : 'standalone';
const RUNS = Number(process.env.BENCH_CHAOS_RUNS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CHAOS_CONCURRENCY ?? 50);
const DEADLINE = Date.now() + Number(process.env.BENCH_CHAOS_MINUTES ?? 8) * 60_000;
const FINAL_DEADLINE = DEADLINE + 2 * 60_000;
const [KILL_MIN, KILL_MAX] = (process.env.BENCH_CHAOS_KILL_MS ?? '2000-6000').split('-').map(Number);
const KEEP = process.env.BENCH_CHAOS_KEEP === '1';
const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef0123';
const { serviceNodeFlags, serviceMallocEnv } = require('../scripts/service-memory-settings');
const WORKERS = ['projector', 'ingestion', 'mapping', 'output', 'notifier'];
const APPS = MODE === 'apps' ? ['gateway', ...WORKERS] : ['standalone'];
const ROWS_PER_FILE = Number(process.env.BENCH_CHAOS_ROWS ?? 5);
const BOOT_KILLS = Number(process.env.BENCH_CHAOS_BOOT_KILLS ?? 0.2);
const IMPATIENT = Number(process.env.BENCH_CHAOS_IMPATIENT ?? 0.05);
const HOOK_FAIL = Number(process.env.BENCH_CHAOS_HOOK_FAIL ?? 0.1);
const FRESH_NAMES = process.env.BENCH_CHAOS_FRESH_NAMES === '1';
const starts = {};

const dataDir = mkdtempSync(join(tmpdir(), 'chaos-data-'));
const logDir = mkdtempSync(join(tmpdir(), 'chaos-logs-'));
const children = new Map();
const healthPorts = new Map();
let port = 0;
let stopping = false;
const base = () => `http://127.0.0.1:${port}`;
const stats = {
  killTimes: [],
  redeliveredWithoutAKill: [],
  kills: 0,
  bootKills: 0,
  impatient: 0,
  hooksRefused: 0,
  killsByApp: {},
  retries: 0,
  errors: {},
  inFlightAtKills: {},
};
const countError = (what) => {
  stats.retries++;
  stats.errors[what] = (stats.errors[what] ?? 0) + 1;
};
/** How many clients are in each step right now (to show which steps the kills hit). */
const phases = {};
const enter = (phase) => (phases[phase] = (phases[phase] ?? 0) + 1);
const leave = (phase) => phases[phase]--;

// ---- the service's processes ---------------------------------------------------------------
function start(app) {
  const env = {
    ...process.env,
    ...serviceMallocEnv(process.env),
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
    // The same name after each restart: the new process takes back at once what the killed one held
    // (BENCH_CHAOS_FRESH_NAMES=1: a new name each time, as a replaced pod; its leases and keys time out).
    INSTANCE_ID: FRESH_NAMES ? `chaos-${app}-${(starts[app] = (starts[app] ?? 0) + 1)}` : `chaos-${app}`,
  };
  delete env.ADMIN_PORT;
  if (healthPorts.has(app)) env.HEALTH_PORT = String(healthPorts.get(app));
  else delete env.HEALTH_PORT;
  const log = openSync(join(logDir, `${app}.log`), 'a');
  const child = spawn(process.execPath, [...serviceNodeFlags(process.env), join(ROOT, `dist/apps/${app}/src/main.js`)], {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  children.set(app, child);
}

async function kill(app) {
  const child = children.get(app);
  if (!child) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  children.delete(app);
}

async function killEverything() {
  stopping = true;
  await Promise.all([...children.keys()].map(kill));
}
// Last resort (an exception on the way out): no child outlives the bench.
process.on('exit', () => {
  for (const child of children.values()) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    void killEverything().then(() => {
      if (!KEEP) for (const dir of [dataDir, logDir]) rmSync(dir, { recursive: true, force: true });
      process.exit(130);
    });
  });

const probeUrl = (app, path) => (healthPorts.has(app) ? `http://127.0.0.1:${healthPorts.get(app)}${path}` : `${base()}${path}`);

async function untilAnswers(url, timeoutMs = 30_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return true;
    } catch {
      /* not up yet */
    }
  }
  return false;
}

/** Kills at random moments: the whole service (standalone), or one app at a time. */
async function chaosMonkey() {
  while (!stopping) {
    await sleep(KILL_MIN + Math.random() * (KILL_MAX - KILL_MIN));
    if (stopping) return;
    const victim = APPS[Math.floor(Math.random() * APPS.length)];
    for (const [phase, n] of Object.entries(phases)) if (n > 0) stats.inFlightAtKills[phase] = (stats.inFlightAtKills[phase] ?? 0) + n;
    stats.killTimes.push(Date.now());
    await kill(victim);
    stats.kills++;
    stats.killsByApp[victim] = (stats.killsByApp[victim] ?? 0) + 1;
    await sleep(Math.random() * 300);
    start(victim);
    if (Math.random() < BOOT_KILLS) {
      // Again while it starts (replaying, taking its claims back), before it answers.
      await sleep(Math.random() * 800);
      stats.killTimes.push(Date.now());
      await kill(victim);
      stats.kills++;
      stats.bootKills++;
      stats.killsByApp[victim] = (stats.killsByApp[victim] ?? 0) + 1;
      start(victim);
    }
    // The next kill counts from when the victim answers again (its HEALTH_PORT, or the gateway's port).
    await untilAnswers(probeUrl(victim, '/healthz'));
  }
}

// ---- a careful client ----------------------------------------------------------------------
async function request(method, path, { token, body, raw, headers = {}, patient = false } = {}) {
  const h = { ...headers };
  // Some requests are cut by the client, as after a timeout, and retried (the server may still be at the first).
  const impatient = !patient && Math.random() < IMPATIENT;
  if (impatient) stats.impatient++;
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
    signal: impatient ? AbortSignal.timeout(Math.floor(Math.random() * 300)) : AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: json, text, retryAfter: Number(res.headers.get('retry-after')) || 0 };
}

class Refused extends Error {}

/**
 * Calls until `done(answer)` says so. Network errors, 5xx, 429 and the listed codes are retried
 * with back-off (Retry-After when given); a 2xx that is not `done` yet (polling) is asked again
 * shortly; anything else is the run's failure.
 */
async function retrying(what, call, done = (r) => r.status < 400, retryCodes = [], deadline = DEADLINE) {
  for (let attempt = 0; ; attempt++) {
    if (Date.now() > deadline) throw new Refused(`${what}: out of time`);
    let wait = Math.min(2000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random());
    try {
      const r = await call();
      if (done(r)) return r;
      if (r.status < 300) {
        await sleep(100);
        attempt = -1;
        continue;
      }
      const code = r.body?.error?.code;
      if (r.status < 500 && r.status !== 429 && !retryCodes.includes(code))
        throw new Refused(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
      countError(`${what} ${r.status}${code ? ` ${code}` : ''}`);
      if (r.retryAfter) wait = Math.min(r.retryAfter * 1000, 5000);
    } catch (err) {
      if (err instanceof Refused) throw err;
      countError(`${what} network`);
    }
    await sleep(wait);
  }
}

const rowsOf = (i) => Array.from({ length: ROWS_PER_FILE }, (_, k) => ({ email: `user${i}-${k}@example.com`, age: 20 + ((i + k) % 60) }));
const csvOf = (i) =>
  `Email,Age\n${rowsOf(i)
    .map((r) => `${r.email},${r.age}`)
    .join('\n')}\n`;

async function step(phase, fn) {
  enter(phase);
  try {
    return await fn();
  } finally {
    leave(phase);
  }
}

async function oneRun(i, org, seen) {
  const key = `chaos-run-${i}`;
  const created = await step('create', () =>
    retrying(
      'create',
      () =>
        request('POST', '/v1/transformations/file', {
          token: org.apiKey,
          body: { schema_id: org.schemaId, filename: `people-${i}.csv`, metadata: { chaos: String(i) } },
          headers: { 'idempotency-key': key },
        }),
      (r) => {
        if (r.status === 201) seen(i, r.body.id);
        return r.status === 201;
      },
      ['idempotency_key_in_use'],
    ),
  );
  const run = created.body;
  const csv = csvOf(i);
  // A re-sent upload of the same bytes answers 200 (docs/api.md); upload_already_completed is a
  // concurrent upload of ours that the crash cut short, so the same bytes are sent again.
  await step('upload', () =>
    retrying(
      'upload',
      () => request(run.upload.method, run.upload.url, { raw: csv, headers: run.upload.headers }),
      (r) => r.status === 200,
      ['upload_already_completed'],
    ),
  );
  const poll = async (until, what) =>
    retrying(
      what,
      () => request('GET', `/v1/transformations/${run.id}`, { token: org.apiKey }),
      (r) => {
        if (r.status === 200 && r.body.id !== run.id) throw new Refused(`${what}: GET ${run.id} answered run ${r.body.id}`);
        if (r.status === 200 && r.body.status === 'failed')
          throw new Refused(`${what}: run ${run.id} failed: ${JSON.stringify(r.body.error)}`);
        if (r.status === 200 && r.body.terminal && !(r.body.stage === 'final' && r.body.status === 'completed'))
          throw new Refused(`${what}: run ${run.id} ended ${r.body.stage}/${r.body.status}/${r.body.review_state}`);
        return r.status === 200 && until(r.body);
      },
    );
  const ready = await step('wait for review', () =>
    poll((r) => (r.review_state === 'active' && r.status === 'completed') || r.review_state === 'approved', 'wait for review'),
  );
  if (ready.body.review_state !== 'approved') {
    const review = new URL(ready.body.review_url);
    await step('approve', () =>
      retrying(
        'approve',
        () => request('POST', `${review.origin}${review.pathname}/approve${review.search}`, { body: {} }),
        // A retried approval whose first attempt landed before the crash: already approved.
        (r) => r.status === 200 || (r.status === 409 && r.body?.error?.code === 'review_already_approved'),
      ),
    );
  }
  const final = await step('wait for output', () =>
    poll((r) => r.stage === 'final' && r.status === 'completed' && r.download_url, 'wait for output'),
  );
  const output = await step('download', () =>
    retrying(
      'download',
      () => request('GET', final.body.download_url),
      (r) => r.status === 200,
    ),
  );
  if (JSON.stringify(output.body) !== JSON.stringify(rowsOf(i)))
    throw new Refused(`run ${run.id} (key ${key}): output ${output.text.slice(0, 300)} is not ${JSON.stringify(rowsOf(i))}`);
  return run.id;
}

// ---- the checks at the end -------------------------------------------------------------------
/** Every page of the organization's runs. */
async function allRuns(org) {
  const runs = [];
  for (let page = 1; ; page++) {
    const r = await retrying(
      'list',
      () => request('GET', `/v1/transformations?per_page=100&page=${page}`, { token: org.apiKey }),
      undefined,
      [],
      FINAL_DEADLINE,
    );
    runs.push(...r.body.data);
    if (page >= r.body.meta.last_page) return { runs, total: r.body.meta.total };
  }
}

/** Each step of each run, counted in the event store (read after every process is gone). */
function stepsRecordedTwice(runIds) {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        `SELECT stream_id, type, json_extract(data, '$.event') AS event, count(*) AS n FROM events
         WHERE stream_id LIKE 'run-%' GROUP BY stream_id, type, event`,
      )
      .all();
    const counts = new Map();
    for (const r of rows) {
      const id = r.stream_id.slice('run-'.length);
      if (!counts.has(id)) counts.set(id, {});
      counts.get(id)[r.event ? `${r.type}(${r.event})` : r.type] = r.n;
    }
    const once = ['RunCreated', 'SourceUploaded', 'SourceParsed', 'ReviewPrepared', 'ReviewApproved', 'OutputProduced'];
    const wrong = [];
    for (const id of runIds) {
      const c = counts.get(id) ?? {};
      const bad = [
        ...once.filter((t) => c[t] !== 1).map((t) => `${t} ×${c[t] ?? 0}`),
        ...(c['WebhookScheduled(transformation.finished)'] === 1
          ? []
          : [`finished WebhookScheduled ×${c['WebhookScheduled(transformation.finished)'] ?? 0}`]),
        ...(c.RunFailed ? [`RunFailed ×${c.RunFailed}`] : []),
      ];
      if (bad.length) wrong.push(`run ${id}: ${bad.join(', ')}`);
    }
    return { wrong, streams: counts.size };
  } finally {
    db.close();
  }
}

// ---- the bench -------------------------------------------------------------------------------
async function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

async function main() {
  /** run id → { ids: the webhook-ids of its finished event, deliveries: attempts received, acks: those answered 200 } */
  const hooks = new Map();
  const hookProblems = [];
  let verifier = null;
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = req.headers['x-service-event'];
      const fail = Math.random() < HOOK_FAIL;
      const runId = req.headers['x-service-id'];
      try {
        verifier?.verify(body, req.headers);
      } catch (err) {
        hookProblems.push(`${event} for ${runId}: signature refused (${err.message})`);
      }
      let payload = null;
      try {
        payload = JSON.parse(body);
      } catch {
        hookProblems.push(`${event} for ${runId}: body is not JSON`);
      }
      if (event !== 'transformation.finished') hookProblems.push(`${event} for ${runId}: an event other than finished`);
      else {
        if (!hooks.has(runId)) hooks.set(runId, { ids: new Set(), deliveries: 0, acks: 0 });
        const h = hooks.get(runId);
        h.ids.add(req.headers['webhook-id']);
        h.deliveries++;
        if (!fail) {
          // At least once, but a second delivery after a 200 is owed to a crash between the answer and its record.
          if (h.acks && !stats.killTimes.some((t) => t >= h.firstAckAt - 1000))
            stats.redeliveredWithoutAKill.push(`${runId}: again ${Date.now() - h.firstAckAt} ms after its 200`);
          h.firstAckAt ??= Date.now();
          h.acks++;
        }
        if (payload && (payload.id !== runId || payload.stage !== 'final' || payload.status !== 'completed'))
          hookProblems.push(`finished for ${runId}: payload ${body.slice(0, 200)}`);
      }
      // A receiver that is slow, and now and then down: the delivery is retried, across the kills too.
      if (fail) stats.hooksRefused++;
      setTimeout(() => res.writeHead(fail ? 503 : 200).end(fail ? 'down' : 'ok'), Math.random() * (fail ? 300 : 100));
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

  port = await freePort();
  if (MODE === 'apps') for (const app of WORKERS) healthPorts.set(app, await freePort());
  // The gateway (or the one process) creates the shared files first; the workers then open them.
  start(APPS[0]);
  if (!(await untilAnswers(`${base()}/healthz`))) throw new Error('the service did not start');
  for (const app of APPS.slice(1)) start(app);
  for (const app of APPS.slice(1)) if (!(await untilAnswers(probeUrl(app, '/healthz')))) throw new Error(`${app} did not start`);

  const orgRes = await request('POST', '/admin/v1/organizations', {
    token: ADMIN_TOKEN,
    patient: true,
    body: { name: 'Chaos', webhook_url: hookUrl },
  });
  if (orgRes.status !== 201) throw new Error(`organization: ${orgRes.status} ${orgRes.text}`);
  verifier = new Webhook(orgRes.body.webhook_secret);
  const schema = await request('POST', `/admin/v1/organizations/${orgRes.body.id}/schemas`, {
    token: ADMIN_TOKEN,
    patient: true,
    body: {
      name: 'People',
      fields: {
        email: { description: 'E-mail', data_type: 'email', is_required: true },
        age: { description: 'Age', data_type: 'integer', is_required: false },
      },
    },
  });
  if (schema.status !== 201) throw new Error(`schema: ${schema.status} ${schema.text}`);
  const org = { id: orgRes.body.id, apiKey: orgRes.body.api_key, schemaId: schema.body.data.id };

  const started = Date.now();
  const monkey = chaosMonkey();
  const results = new Map();
  const failures = [];
  /** Every run id a client was answered for each key: more than one is a duplicate. */
  const seenIds = new Map();
  const seen = (i, id) => {
    if (!seenIds.has(i)) seenIds.set(i, new Set());
    seenIds.get(i).add(id);
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        const i = next++;
        try {
          results.set(i, await oneRun(i, org, seen));
        } catch (err) {
          failures.push(`run ${i}: ${err.message}`);
        }
      }
    }),
  );
  const runsSeconds = Math.round((Date.now() - started) / 1000);
  stopping = true;
  await monkey;

  // Every process up again and ready, then the webhooks still owed get their time.
  for (const app of APPS) if (!children.has(app)) start(app);
  const notReady = [];
  for (const app of APPS) if (!(await untilAnswers(probeUrl(app, '/readyz')))) notReady.push(app);
  const ids = [...results.values()];
  for (const deadline = Math.min(Date.now() + 60_000, FINAL_DEADLINE); ids.some((id) => !hooks.get(id)?.acks) && Date.now() < deadline;)
    await sleep(200);

  // One run per key, the one the client saw, completed.
  const listed = await allRuns(org);
  const byKey = new Map();
  for (const run of listed.runs) {
    const k = run.metadata?.chaos ?? '(none)';
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(run);
  }
  const duplicates = [];
  const missing = [];
  const notCompleted = [];
  for (let i = 0; i < RUNS; i++) {
    const found = byKey.get(String(i)) ?? [];
    if (found.length > 1) duplicates.push(`key chaos-run-${i}: runs ${found.map((r) => r.id).join(', ')}`);
    if (found.length === 0) missing.push(`key chaos-run-${i}: no run`);
    if ((seenIds.get(i)?.size ?? 0) > 1) duplicates.push(`key chaos-run-${i}: the client was answered ${[...seenIds.get(i)].join(', ')}`);
    if (results.has(i) && !found.some((r) => r.id === results.get(i))) missing.push(`key chaos-run-${i}: ${results.get(i)} not listed`);
    for (const r of found)
      if (!(r.stage === 'final' && r.status === 'completed')) notCompleted.push(`run ${r.id}: ${r.stage}/${r.status}/${r.review_state}`);
  }
  const strangers = listed.runs.filter((r) => !(Number(r.metadata?.chaos) >= 0 && Number(r.metadata?.chaos) < RUNS));

  const lostHooks = ids.filter((id) => !hooks.get(id)?.acks);
  const finishedTwice = [...hooks].filter(([, h]) => h.ids.size > 1).map(([id, h]) => `run ${id}: webhook-ids ${[...h.ids].join(', ')}`);
  const hookAcks = [...hooks.values()].reduce((n, h) => n + h.acks, 0);
  const hookAttempts = [...hooks.values()].reduce((n, h) => n + h.deliveries, 0);

  await killEverything();
  receiver.close();
  const audit = stepsRecordedTwice(ids);

  const summary = {
    mode: MODE,
    fresh_names: FRESH_NAMES,
    runs: RUNS,
    concurrency: CONCURRENCY,
    completed_right: ids.length,
    failed: failures.length,
    runs_in_the_service: listed.total,
    duplicate_runs: duplicates.length,
    runs_missing: missing.length,
    runs_not_completed: notCompleted.length,
    runs_without_a_key: strangers.length,
    steps_not_recorded_once: audit.wrong.length,
    finished_webhooks_missing: lostHooks.length,
    finished_webhook_attempts: hookAttempts,
    finished_webhook_attempts_refused_by_receiver: stats.hooksRefused,
    finished_webhooks_redelivered_after_a_200: hookAcks - [...hooks.values()].filter((h) => h.acks).length,
    redelivered_after_a_200_with_no_kill_since: stats.redeliveredWithoutAKill.length,
    runs_finished_twice: finishedTwice.length,
    webhook_problems: hookProblems.length,
    not_ready_after: notReady,
    kills: stats.kills,
    kills_during_boot: stats.bootKills,
    kills_by_app: stats.killsByApp,
    clients_in_flight_at_kills: stats.inFlightAtKills,
    client_requests_cut_short: stats.impatient,
    client_retries: stats.retries,
    seconds_runs: runsSeconds,
    seconds_total: Math.round((Date.now() - started) / 1000),
    retried: stats.errors,
    log_lines: Object.fromEntries(
      readdirSync(logDir).map((f) => [f.replace(/\.log$/, ''), readFileSync(join(logDir, f), 'utf8').split('\n').filter(Boolean).length]),
    ),
  };
  console.log(JSON.stringify(summary, null, 2));
  const problems = [
    ...failures,
    ...duplicates,
    ...missing,
    ...notCompleted,
    ...strangers.map((r) => `run ${r.id}: no chaos key (${JSON.stringify(r.metadata)})`),
    ...audit.wrong,
    ...lostHooks.map((id) => `run ${id}: no transformation.finished webhook`),
    ...finishedTwice,
    ...stats.redeliveredWithoutAKill.map((r) => `finished webhook redelivered after a 200 with no kill in between: ${r}`),
    ...hookProblems,
    ...notReady.map((app) => `${app}: /readyz not 200 after the kills`),
  ];
  for (const p of problems.slice(0, 30)) console.error(p);
  if (problems.length > 30) console.error(`… and ${problems.length - 30} more`);
  const logged = readdirSync(logDir).filter((f) => statSync(join(logDir, f)).size > 0);
  if (problems.length || KEEP) console.error(`data: ${dataDir}\nchildren's logs: ${logDir} (${logged.join(', ') || 'all empty'})`);
  else for (const dir of [dataDir, logDir]) rmSync(dir, { recursive: true, force: true });
  process.exit(problems.length === 0 ? 0 : 1);
}

main().catch(async (err) => {
  console.error(err);
  await killEverything();
  console.error(`data: ${dataDir}\nchildren's logs: ${logDir}`);
  process.exit(1);
});
