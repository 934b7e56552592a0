/* A real service for benchmarks: the built standalone app in a child process on loopback,
 * with the heap cap `npm start` uses, and the few API calls a benchmark needs. */
const { spawn } = require('node:child_process');
const { serviceNodeFlags, serviceMallocEnv } = require('../../scripts/service-memory-settings');
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');

const ROOT = path.join(__dirname, '..', '..');
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system, every thread) the process `pid` has used so far: a figure the machine's noise moves less than wall time. */
const cpuSeconds = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ, 100 on Linux)
};

const status = (pid, key) => {
  const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/** MB (10^6 bytes) a second an upload is sent at most, as over a network link (BENCH_UPLOAD_MB_PER_S); unset: as fast as loopback goes. */
const UPLOAD_MB_PER_S = Number(process.env.BENCH_UPLOAD_MB_PER_S || 0);

/** A file's bytes as an upload's body (1 MiB reads), paced to UPLOAD_MB_PER_S when it is set. */
function uploadBody(file) {
  const stream = fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
  if (!(UPLOAD_MB_PER_S > 0)) return stream;
  return Readable.from(
    (async function* paced() {
      const start = Date.now();
      let sent = 0;
      for await (const chunk of stream) {
        sent += chunk.length;
        const due = start + sent / (UPLOAD_MB_PER_S * 1000);
        if (due > Date.now()) await sleep(due - Date.now());
        yield chunk;
      }
    })(),
  );
}

/**
 * PUTs a file to a signed upload URL with its size declared, as curl or an SDK would, and
 * answers the status. Through node:http rather than fetch: the client shares the service's two
 * cores, and undici's streamed request body (sent chunked) took 0.3-0.7 s more of them than
 * this or curl for the CSV case's 94 MB (bench/README.md, "... the bench's upload client", 2026-11-27).
 */
function putFile(url, headers, file) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers: { ...headers, 'content-length': fs.statSync(file).size } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    request.on('error', reject);
    pipeline(uploadBody(file), request).catch(reject);
  });
}

/**
 * `stdout`: when given (an object `{ count: 0 }`), the service's stdout is a pipe the bench
 * drains, as a container runtime reads it, counting its lines into `stdout.count`; else it
 * goes nowhere. `nodeFlags`: more flags for the service's node (a case's own, e.g. a preload).
 */
async function startService({ dataDir, env = {}, stdout = null, nodeFlags = [] }) {
  const port = 3900 + Math.floor(Math.random() * 90);
  const base = `http://127.0.0.1:${port}`;
  // BENCH_CPU_PROF_DIR: the service writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  // BENCH_NODE_FLAGS: extra flags for the service's node (an experiment, e.g. `--single-threaded-gc`).
  const flags = (process.env.BENCH_NODE_FLAGS || '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      ...profile,
      ...flags,
      ...nodeFlags,
      ...serviceNodeFlags(process.env),
      path.join(process.env.BENCH_DIST || path.join(ROOT, 'dist'), 'apps/standalone/src/main.js'),
    ],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        PUBLIC_BASE_URL: base,
        RATE_LIMIT_PER_MINUTE: '100000000',
        ...serviceMallocEnv(process.env),
        MAX_UPLOAD_BYTES: String(8 * 1024 ** 3),
        ...env,
      },
      // BENCH_SERVICE_LOG: a file the service's stdout goes to (its log lines; with BENCH_NODE_FLAGS=--trace-gc, its collections).
      stdio: [
        'ignore',
        stdout ? 'pipe' : process.env.BENCH_SERVICE_LOG ? fs.openSync(process.env.BENCH_SERVICE_LOG, 'w') : 'ignore',
        'inherit',
      ],
    },
  );
  if (stdout) {
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) stdout.count++;
    });
  }
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/openapi.json`);
      break;
    } catch {
      if (i > 200 || child.exitCode !== null) throw new Error('service did not start');
      await sleep(100);
    }
  }
  const json = async (url, init = {}) => {
    const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers || {}) } });
    return res.json();
  };
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  return {
    base,
    pid: child.pid,
    json,
    peakRssMb: () => status(child.pid, 'VmHWM'),
    /** Seconds the service spent in a pipeline step so far (its transform_step_duration_seconds sum; 0 if none ran). */
    async stepSeconds(step) {
      const metrics = await (await fetch(`${base}/metrics`)).text();
      const sum = new RegExp(`^transform_step_duration_seconds_sum\\{step="${step}"\\} (\\S+)$`, 'm').exec(metrics);
      return sum ? Number(sum[1]) : 0;
    },
    rssMb: () => status(child.pid, 'VmRSS'),
    /** An organization with one schema; returns the API key and the schema id. */
    async organization(fields, schemaOptions = {}) {
      const org = await json(`${base}/admin/v1/organizations`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench' }) });
      const schema = await json(`${base}/admin/v1/organizations/${org.id}/schemas`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'bench', fields, ...schemaOptions }),
      });
      return { apiKey: org.api_key, schemaId: schema.data.id };
    },
    /**
     * Creates a file run, uploads the file, waits for the review, approves and waits for the output; times both halves.
     * `hooks.beforeApproval` is awaited once the review is ready, before the approval; `hooks.onApproved` hears it.
     */
    async runFile({ apiKey, schemaId }, file, filename, hooks = {}) {
      const auth = { authorization: `Bearer ${apiKey}` };
      const run = await json(`${base}/v1/transformations/file`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ schema_id: schemaId, filename, output_format: process.env.BENCH_OUTPUT_FORMAT || 'json' }),
      });
      const poll = async (until) => {
        for (;;) {
          const r = await json(`${base}/v1/transformations/${run.id}`, { headers: auth });
          if (r.status === 'failed') throw new Error(`run failed: ${JSON.stringify(r.error)}`);
          if (until(r)) return r;
          await sleep(25);
        }
      };
      const t0 = process.hrtime.bigint();
      const cpu0 = cpuSeconds(child.pid);
      const uploaded = await putFile(run.upload.url, run.upload.headers, file);
      if (uploaded !== 200) throw new Error(`upload answered ${uploaded}`);
      const uploadSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const ready = await poll((r) => r.review_state === 'active');
      const reviewSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu1 = cpuSeconds(child.pid);
      const u = new URL(ready.review_url);
      await hooks.beforeApproval?.();
      const cpuAtApproval = cpuSeconds(child.pid); // what the hook's own work cost is in neither half
      const t1 = process.hrtime.bigint();
      const approved = await fetch(`${u.origin}${u.pathname}/approve${u.search}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (!approved.ok) throw new Error(`approve answered ${approved.status}`);
      hooks.onApproved?.();
      const done = await poll((r) => r.status === 'completed' && r.stage === 'final');
      const outputSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
      const cpu2 = cpuSeconds(child.pid);
      return {
        reviewCpuSeconds: cpu1 - cpu0,
        outputCpuSeconds: cpu2 - cpuAtApproval,
        runId: run.id,
        apiKey,
        uploadSeconds,
        reviewSeconds,
        outputSeconds,
        rowsWritten: done.processed_rows,
        downloadUrl: done.download_url,
      };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

module.exports = { startService, putFile, sleep, ROOT, cpuSeconds };
