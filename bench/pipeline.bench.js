/* Pipeline benchmark: a generated CSV through the real service (upload -> review-ready,
 * approve -> output-ready) against a bare papaparse object parse of the same file, both
 * measured in this run. Prints rows/s, MB/s, peak RSS and the ratio.
 *   BENCH_ROWS (default 1000000; ~100 MB)  npm run bench
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Papa = require('papaparse');

const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
const csv = path.join(work, 'input.csv');

async function generate() {
  const out = fs.createWriteStream(csv);
  const write = (s) => (out.write(s) ? null : new Promise((r) => out.once('drain', r)));
  await write('id,email,first_name,last_name,city,amount,signup_date,notes\n');
  for (let i = 0; i < ROWS; i++) {
    const p = write(
      `${i},user${i}@example.com,Jörg${i % 97},Müller-${i % 1013},"Köln, DE",${(i * 7.31).toFixed(2)},2024-0${1 + (i % 9)}-1${i % 10},"note ""${i}"" ok"\n`,
    );
    if (p) await p;
  }
  await new Promise((r) => out.end(r));
}

function bareParse() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let rows = 0;
    const stream = fs.createReadStream(csv);
    stream.setEncoding('utf8');
    Papa.parse(stream, {
      header: true,
      step: () => {
        rows++;
      },
      complete: () => resolve({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, rows }),
      error: reject,
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
/** Samples the service's RSS every 50 ms and keeps the highest value per phase. */
function rssSampler(pid) {
  const peaks = {};
  let phase = 'start';
  const timer = setInterval(() => {
    try {
      peaks[phase] = Math.max(peaks[phase] || 0, rssMb(pid));
    } catch {
      /* exited */
    }
  }, 50);
  return {
    set: (p) => {
      phase = p;
    },
    stop: () => {
      clearInterval(timer);
      return peaks;
    },
  };
}
const peakRssMb = (pid) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

async function main() {
  await generate();
  const bytes = fs.statSync(csv).size;
  console.log(`input: ${ROWS} rows, ${(bytes / 1e6).toFixed(1)} MB`);

  const before = process.memoryUsage().rss;
  const bare = await bareParse();
  console.log(
    `baseline papaparse object parse: ${bare.seconds.toFixed(2)} s, ${(ROWS / bare.seconds).toFixed(0)} rows/s, ${(bytes / 1e6 / bare.seconds).toFixed(1)} MB/s (bench process RSS ${(Math.max(before, process.memoryUsage().rss) / 1048576).toFixed(0)} MB)`,
  );

  const port = 3900 + Math.floor(Math.random() * 90);
  const base = `http://127.0.0.1:${port}`;
  // The heap cap `npm start` uses (package.json config.heap_mb): V8 otherwise lets garbage pile up to GBs.
  const heapMb = process.env.HEAP_MB || require('../package.json').config.heap_mb;
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, 'dist/apps/standalone/src/main.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(work, 'data'),
      ADMIN_TOKEN: 'bench',
      PUBLIC_BASE_URL: base,
      RATE_LIMIT_PER_MINUTE: '100000',
      MAX_UPLOAD_BYTES: String(8 * 1024 ** 3),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      try {
        await fetch(`${base}/openapi.json`);
        break;
      } catch {
        if (i > 100) throw new Error('service did not start');
        await sleep(100);
      }
    }
    const json = async (url, init = {}) =>
      (await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers || {}) } })).json();
    const org = await json(`${base}/admin/v1/organizations`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const field = (data_type) => ({ description: 'x', data_type, is_required: false });
    const schema = await json(`${base}/admin/v1/organizations/${org.id}/schemas`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench' },
      body: JSON.stringify({
        name: 'bench',
        fields: {
          email: field('email'),
          first_name: field('string'),
          last_name: field('string'),
          city: field('string'),
          amount: field('number'),
          signup_date: field('date'),
        },
      }),
    });
    const auth = { authorization: `Bearer ${org.api_key}` };
    const run = await json(`${base}/v1/transformations/file`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ schema_id: schema.data.id, filename: 'input.csv' }),
    });
    const poll = async (until) => {
      for (;;) {
        const r = await json(`${base}/v1/transformations/${run.id}`, { headers: auth });
        if (r.status === 'failed') throw new Error(JSON.stringify(r.error));
        if (until(r)) return r;
        await sleep(50);
      }
    };

    const sampler = rssSampler(child.pid);
    sampler.set('upload');
    const t0 = Date.now();
    const up = await fetch(run.upload.url, { method: 'PUT', headers: run.upload.headers, body: fs.createReadStream(csv), duplex: 'half' });
    if (up.status !== 200) throw new Error(`upload ${up.status}`);
    sampler.set('ingestion');
    const ready = await poll((r) => r.review_state === 'active');
    sampler.set('review-ready');
    const reviewSeconds = (Date.now() - t0) / 1000;
    const u = new URL(ready.review_url);
    const t1 = Date.now();
    sampler.set('output');
    await json(`${u.origin}${u.pathname}/approve${u.search}`, { method: 'POST', body: '{}' });
    const done = await poll((r) => r.status === 'completed' && r.stage === 'final');
    const outputSeconds = (Date.now() - t1) / 1000;
    const total = reviewSeconds + outputSeconds;
    const rss = peakRssMb(child.pid);
    const phases = sampler.stop();
    console.log(
      `service peak RSS per phase (MB, sampled every 50 ms): ${Object.entries(phases)
        .map(([p, v]) => `${p} ${v.toFixed(0)}`)
        .join(', ')}`,
    );
    console.log(
      `pipeline: upload->review-ready ${reviewSeconds.toFixed(2)} s, approve->output-ready ${outputSeconds.toFixed(2)} s, total ${total.toFixed(2)} s`,
    );
    console.log(
      `pipeline: ${(ROWS / total).toFixed(0)} rows/s, ${(bytes / 1e6 / total).toFixed(1)} MB/s, service peak RSS ${rss.toFixed(0)} MB, rows written ${done.processed_rows}`,
    );
    console.log(
      `ratio pipeline/baseline: ${(total / bare.seconds).toFixed(2)}x (target <= 2x); peak RSS target < 256 MB: ${rss < 256 ? 'met' : 'NOT met'}`,
    );
  } finally {
    child.kill('SIGTERM');
    await sleep(300);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
