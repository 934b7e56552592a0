/* What one request costs (issue 28, "the cost of one request"): autocannon, 50 connections,
 * against the built service (started as `npm start` starts it), against a bare Node
 * server answering the same body bytes (the baseline the ratio is taken to) and against a
 * bare Fastify server answering them on the same path (no hooks, plugins or logger: what
 * the HTTP framework the service is built on costs by itself, the ceiling of any route of
 * ours), each in a process of its own, measured in this run one after the other. Three
 * routes: `/healthz` (no auth, no storage), a run's GET (API key, read model, signed links)
 * and the schema list `GET /v1/schemas` (API key, directory, page envelope).
 *
 * A third server answers the same bytes from inside the service's own process (a bare Node
 * listener loaded with `--require`, bench/lib/bare-listener.js): the best any route could do in
 * that process, so the figures tell the process's cost (its heap, threads and async hooks) from
 * what the route's layers add.
 *
 * The service's stdout is a pipe the bench drains (as a container runtime reads it), so the
 * access log costs what it costs in production; its lines are counted. Each route is loaded
 * for a short warm-up first (JIT), then for BENCH_GET_SECONDS (default 10).
 *
 * BENCH_OVERHEAD_ENV: extra environment for the service, `NAME=value,NAME=value` (an
 * experiment: e.g. `LOG_LEVEL=warn` to see what the access log costs). */
const { spawn } = require('node:child_process');
const path = require('node:path');
const autocannon = require('autocannon');
const { startService, cpuSeconds } = require('../lib/service');
const { generateCsv, FIELDS } = require('./csv-pipeline');

const BARE_LISTENER = path.join(__dirname, '..', 'lib', 'bare-listener.js');

const DURATION_S = Number(process.env.BENCH_GET_SECONDS || 10);
const WARMUP_S = 2;
const CONNECTIONS = 50;
const P99_TARGET_MS = 25;

/** Loads `url` and reads how much CPU the server process `pid` spent per request meanwhile. */
async function measure(url, headers, seconds, pid) {
  const cpu0 = cpuSeconds(pid);
  const result = await load(url, headers, seconds);
  return { ...result, cpuUsPerRequest: ((cpuSeconds(pid) - cpu0) / result.requests) * 1e6 };
}

/** The `share` percentile (0.99: the 99th) of `latencies` (ms), or 0 for none. */
const percentileOf = (latencies, share) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];
};

/**
 * autocannon at CONNECTIONS on `url` for `seconds`; any non-2xx answer, error or time-out fails the run.
 * `perSecond`: also each second's answers and p99 (`seconds`: [{ requests, p99 }]), from the time each
 * answer arrived, to tell a burst at the start of a window from a steady cost.
 * `countFrom`: a promise of the time (ms since the epoch) from which answers count: those that arrive
 * before it are load only (the clients were already polling), and the rate, percentiles and seconds
 * are those of the answers from then on. The promise returned has `stop()`, which ends the load
 * early (a caller whose other work failed).
 */
function load(url, headers, seconds, { perSecond = false, countFrom = null } = {}) {
  let instance;
  const loaded = new Promise((resolve, reject) => {
    const started = Date.now();
    const answers = []; // [arrived at (ms), latency (ms)]
    instance = autocannon({ url, connections: CONNECTIONS, duration: seconds, headers }, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
        return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`));
      }
      const ended = Date.now();
      Promise.resolve(countFrom ?? started).then((from) => {
        const counted = answers.filter(([at]) => at >= from).map(([at, ms]) => [at - from, ms]);
        if (countFrom && counted.length === 0) return reject(new Error(`${url}: no answer after the time counted from`));
        const latencies = counted.map(([, ms]) => ms);
        // autocannon ends on its sampling tick, a little past `seconds`: that sliver joins the last second.
        const windowSeconds = Math.max(1, Math.round((ended - from) / 1000));
        const bySecond = Array.from({ length: windowSeconds }, () => []);
        for (const [at, ms] of counted) bySecond[Math.min(windowSeconds - 1, Math.floor(at / 1000))].push(ms);
        resolve({
          rps: countFrom ? counted.length / ((ended - from) / 1000) : result.requests.average,
          p50: countFrom ? Math.round(percentileOf(latencies, 0.5)) : result.latency.p50,
          p99: countFrom ? Math.round(percentileOf(latencies, 0.99)) : result.latency.p99,
          requests: countFrom ? counted.length : result.requests.total,
          seconds: perSecond ? bySecond.map((l) => ({ requests: l.length, p99: percentileOf(l, 0.99) })) : undefined,
        });
      }, reject);
    });
    if (perSecond || countFrom) instance.on('response', (_client, _status, _bytes, latencyMs) => answers.push([Date.now(), latencyMs]));
  });
  return Object.assign(loaded, { stop: () => instance.stop() });
}

/** A bare Node http server answering `body` to every request. */
const BARE_NODE = `
  const http = require('node:http');
  const body = Buffer.from(process.env.BARE_BODY, 'base64');
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));`;

/** Fastify as the service makes it (a UUID request id), one route on the measured path, answering `body`; nothing else. */
const BARE_FASTIFY = `
  const { randomUUID } = require('node:crypto');
  const body = Buffer.from(process.env.BARE_BODY, 'base64');
  const app = require('fastify')({ logger: false, genReqId: () => randomUUID() });
  app.get(process.env.BARE_PATH, (_request, reply) => { reply.type('application/json; charset=utf-8').send(body); });
  app.listen({ port: 0, host: '127.0.0.1' }).then(() => process.send(app.server.address().port));`;

/** A bare server (`source`) in a child process, as the service is; `route` is the path it is asked for. */
async function bareServer(source, body, route = '/') {
  const child = spawn(process.execPath, ['-e', source], {
    cwd: path.join(__dirname, '..', '..'), // the repository's node_modules (fastify)
    env: { ...process.env, BARE_BODY: Buffer.from(body).toString('base64'), BARE_PATH: route },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  return {
    pid: child.pid,
    url: `http://127.0.0.1:${port}${route}`,
    close: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

const extraEnv = () =>
  Object.fromEntries(
    (process.env.BENCH_OVERHEAD_ENV || '')
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );

/** The URL and headers of each route, in a service with one organization, one schema and one small completed run. */
const ROUTES = {
  healthz: { name: 'GET /healthz', prepare: async (svc) => ({ url: `${svc.base}/healthz`, headers: {} }) },
  'run-get': {
    name: 'GET of a run',
    prepare: async (svc, work) => {
      const org = await svc.organization(FIELDS);
      const small = path.join(work, 'overhead-small.csv');
      await generateCsv(small, 10);
      const done = await svc.runFile(org, small, 'small.csv');
      return { url: `${svc.base}/v1/transformations/${done.runId}`, headers: { authorization: `Bearer ${org.apiKey}` } };
    },
  },
  schemas: {
    name: 'GET /v1/schemas',
    prepare: async (svc) => {
      const org = await svc.organization(FIELDS);
      return { url: `${svc.base}/v1/schemas`, headers: { authorization: `Bearer ${org.apiKey}` } };
    },
  },
};

/** The bare listener inside the service's process: given `body`, warmed up and measured (CPU of the service's whole process). */
async function loadInProcessBare(url, body, pid) {
  const set = await fetch(url, { method: 'PUT', body });
  if (set.status !== 204) throw new Error(`the in-process bare listener answered ${set.status}`);
  await load(url, {}, WARMUP_S);
  return measure(url, {}, DURATION_S, pid);
}

/** Starts a bare server, warms it up, measures it, stops it. */
async function loadBare(source, body, route) {
  const bare = await bareServer(source, body, route);
  try {
    await load(bare.url, {}, WARMUP_S);
    return await measure(bare.url, {}, DURATION_S, bare.pid);
  } finally {
    await bare.close();
  }
}

async function requestOverhead({ work, route }) {
  const spec = ROUTES[route];
  const lines = { count: 0 };
  // 4100-4189: fetch refuses some ports (4045 and 4190 among them) with "bad port".
  const barePort = 4100 + Math.floor(Math.random() * 90);
  const svc = await startService({
    dataDir: path.join(work, `data-${route}`),
    env: { ...extraEnv(), BENCH_BARE_LISTENER_PORT: String(barePort) },
    stdout: lines,
    nodeFlags: ['--require', BARE_LISTENER],
  });
  try {
    const { url, headers } = await spec.prepare(svc, work);
    const res = await fetch(url, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body}`);
    const bareResult = await loadBare(BARE_NODE, body);
    // The same path as the service's (the router's work is part of Fastify's); the query is not part of any of ours.
    const fastifyResult = await loadBare(BARE_FASTIFY, body, new URL(url).pathname);
    const inProcess = await loadInProcessBare(`http://127.0.0.1:${barePort}/`, body, svc.pid);
    await load(url, headers, WARMUP_S);
    const linesBefore = lines.count;
    const measured = await measure(url, headers, DURATION_S, svc.pid);
    const logged = lines.count - linesBefore;
    return {
      name: `${spec.name}, ${CONNECTIONS} connections (${body.length} bytes)`,
      baseline:
        `bare Node ${bareResult.rps.toFixed(0)} req/s, p99 ${bareResult.p99} ms, CPU ${bareResult.cpuUsPerRequest.toFixed(0)} µs/request ` +
        `(bare Fastify ${fastifyResult.rps.toFixed(0)} req/s, ${fastifyResult.cpuUsPerRequest.toFixed(0)} µs/request: ` +
        `${(fastifyResult.rps / bareResult.rps).toFixed(2)} of bare Node; the service ${(measured.rps / fastifyResult.rps).toFixed(2)} of bare Fastify; ` +
        `bare Node in the service's process ${inProcess.rps.toFixed(0)} req/s, ${inProcess.cpuUsPerRequest.toFixed(0)} µs/request: ` +
        `${(inProcess.rps / bareResult.rps).toFixed(2)} of bare Node, the route ${(measured.rps / inProcess.rps).toFixed(2)} of it)`,
      measured:
        `${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, CPU ${measured.cpuUsPerRequest.toFixed(0)} µs/request, ` +
        `${logged} log lines for ${measured.requests} requests`,
      ratio: measured.rps / bareResult.rps,
      target: route === 'healthz' ? 0.8 : 0.5,
      limit: { what: 'p99', value: measured.p99, max: P99_TARGET_MS, unit: 'ms' },
      peakRssMb: svc.peakRssMb(),
    };
  } finally {
    await svc.stop();
  }
}

module.exports = { requestOverhead, load, loadBare, BARE_NODE };
