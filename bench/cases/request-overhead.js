/* What one request costs (issue 28, "the cost of one request"): autocannon, 50 connections,
 * against the built service (started as `npm start` starts it) and against a bare Node
 * server answering the same body bytes, each in a process of its own, measured in this run
 * one after the other. Three routes: `/healthz` (no auth, no storage), a run's GET (API key,
 * read model, signed links) and the schema list `GET /v1/schemas` (API key, directory, page
 * envelope).
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

function load(url, headers, seconds) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: seconds, headers }, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
        return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`));
      }
      resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total });
    });
  });
}

/** A bare Node http server in a child process (as the service is), answering `body` to every request. */
async function bareServer(body) {
  const source = `
    const http = require('node:http');
    const body = Buffer.from(process.env.BARE_BODY, 'base64');
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));`;
  const child = spawn(process.execPath, ['-e', source], {
    env: { ...process.env, BARE_BODY: Buffer.from(body).toString('base64') },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  return {
    pid: child.pid,
    url: `http://127.0.0.1:${port}/`,
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

async function requestOverhead({ work, route }) {
  const spec = ROUTES[route];
  const lines = { count: 0 };
  const svc = await startService({ dataDir: path.join(work, `data-${route}`), env: extraEnv(), stdout: lines });
  try {
    const { url, headers } = await spec.prepare(svc, work);
    const res = await fetch(url, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body}`);
    const bare = await bareServer(body);
    let bareResult;
    try {
      await load(bare.url, {}, WARMUP_S);
      bareResult = await measure(bare.url, {}, DURATION_S, bare.pid);
    } finally {
      await bare.close();
    }
    await load(url, headers, WARMUP_S);
    const linesBefore = lines.count;
    const measured = await measure(url, headers, DURATION_S, svc.pid);
    const logged = lines.count - linesBefore;
    return {
      name: `${spec.name}, ${CONNECTIONS} connections (${body.length} bytes)`,
      baseline: `bare Node ${bareResult.rps.toFixed(0)} req/s, p99 ${bareResult.p99} ms, CPU ${bareResult.cpuUsPerRequest.toFixed(0)} µs/request`,
      measured:
        `${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, CPU ${measured.cpuUsPerRequest.toFixed(0)} µs/request, ` +
        `${logged} log lines for ${measured.requests} requests`,
      ratio: measured.rps / bareResult.rps,
      target: route === 'healthz' ? 0.8 : 0.5,
      extra: { p99: measured.p99, p99Target: P99_TARGET_MS },
      peakRssMb: svc.peakRssMb(),
    };
  } finally {
    await svc.stop();
  }
}

module.exports = { requestOverhead };
