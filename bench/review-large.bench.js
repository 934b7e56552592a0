/* The hosted review on a large file (issue 18: "with 1M-row files staying responsive"):
 * the review page's JSON calls against the built service, with a realistic share of bad
 * cells, each figure beside a baseline measured in the same run.
 *
 *   preview            POST preview {mapping_rule}: answer time
 *   count              POST problems {wait: false} polled as the page polls it (every 1 s), from
 *                      start to done; the polls and whether rows_checked grows. The duration is
 *                      taken from a POST problems {wait: true} sent beside it (it joins the count)
 *                      and set against a bare papaparse pass over the same file (strings, rows as
 *                      arrays, as bench/csv-floor.bench.js does): ratio = papaparse / count
 *   problem rows       page 1 asked while the count runs; after it is done: page 1, a page far
 *                      into the file (2000, or the last if fewer) and the last page, and a page
 *                      filtered by field and kind
 *   stays responsive   GET /v1/transformations/<id> (API key) every ~100 ms while the count runs,
 *                      p50/p95/max, against the same call sampled idle just before: ratio = idle / busy
 *   memory             the service's peak RSS (VmHWM) against the 256 MB target of bench/README.md
 *
 *   npm run bench:review          (builds first)
 *   BENCH_ROWS (default 1,000,000), BENCH_DIST, HEAP_MB, CPU_WORKER_THREADS as for the other benches.
 * Exits non-zero only on errors; targets are reported, not enforced.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Papa = require('papaparse');
const { startService, sleep } = require('./lib/service');
const { openReview, timed } = require('./lib/review-session');
const { writeCsv } = require('./lib/write-csv');

const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const COUNT_POLL_MS = 1000; // as the page polls the count (apps/gateway/src/review/page/state.ts)
const SAMPLE_MS = 100;
const IDLE_SAMPLES = 50;
const FAR_PAGE = 2000;
const PER_PAGE = 20;
const RSS_TARGET_MB = 256;
const PAGE_TARGET_MS = 300; // issue 28: any page of a 1M-row file, once its count is done

const field = (data_type, is_required, extra = {}) => ({ description: data_type, data_type, is_required, ...extra });
const FIELDS = {
  customer_id: field('integer', true),
  email: field('email', true, { transformations: { trim_whitespace: { enabled: true }, lowercase: { enabled: true } } }),
  first_name: field('string', true),
  last_name: field('string', false),
  phone: field('string', false),
  city: field('string', false),
  country: field('string', false),
  amount: field('number', true),
  signup_date: field('date', false, { transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } } }),
  active: field('boolean', false),
};
const HEADERS = Object.keys(FIELDS);
const MAPPING = Object.fromEntries(HEADERS.map((h) => [h, h]));

/** A deterministic generator (mulberry32): bad cells scattered, not in stripes. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `rows` data rows of 10 columns: 5% bad e-mails, 1% empty first names (required), 2% amounts
 * that are not numbers and 0.5% empty (required), 0.5% dates not in dd/MM/yyyy. Returns the
 * problems it planted, per field and kind, to check the count against.
 */
async function generateCsv(file, rows) {
  const rnd = random(18);
  const planted = { email: { type: 0 }, first_name: { required: 0 }, amount: { type: 0, required: 0 }, signup_date: { type: 0 } };
  let rowsWithProblems = 0;
  const cities = ['Köln', 'Berlin', 'São Paulo', 'Zürich', 'Lyon', 'Kraków', '"Washington, DC"', 'Utrecht'];
  const countries = ['DE', 'DE', 'BR', 'CH', 'FR', 'PL', 'US', 'NL'];
  await writeCsv(file, HEADERS.join(','), rows, (i) => {
    let bad = false;
    let email = ` User${i}@Example.com `;
    if (rnd() < 0.05) {
      email = i % 2 ? `user${i}(at)example.com` : `user${i}@`;
      planted.email.type++;
      bad = true;
    }
    let first = `Jörg${i % 97}`;
    if (rnd() < 0.01) {
      first = '';
      planted.first_name.required++;
      bad = true;
    }
    let amount = ((i * 7.31) % 10000).toFixed(2);
    const a = rnd();
    if (a < 0.02) {
      amount = i % 2 ? 'n/a' : 'twelve';
      planted.amount.type++;
      bad = true;
    } else if (a < 0.025) {
      amount = '';
      planted.amount.required++;
      bad = true;
    }
    let date = `${String(1 + (i % 28)).padStart(2, '0')}/${String(1 + (i % 12)).padStart(2, '0')}/${1950 + (i % 60)}`;
    if (rnd() < 0.005) {
      date = 'unknown';
      planted.signup_date.type++;
      bad = true;
    }
    if (bad) rowsWithProblems++;
    const c = i % cities.length;
    return `${i},${email},${first},Müller-${i % 1013},+49 30 ${100000 + (i % 899999)},${cities[c]},${countries[c]},${amount},${date},${i % 3 ? 'yes' : 'no'}`;
  });
  return { planted, rowsWithProblems };
}

/** The baseline: a bare papaparse pass over the file, strings, rows as arrays (bench/csv-floor.bench.js's check). */
function barePapaparse(file) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let rows = 0;
    const stream = fs.createReadStream(file);
    stream.setEncoding('utf8');
    Papa.parse(stream, {
      chunk: (r) => (rows += r.data.length),
      complete: () => resolve({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, rows }),
      error: reject,
    });
  });
}

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const fmt = (x, digits = 1) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));

/** Calls `call` every `every` ms (or right after the last answer when it took longer) until `stop()`; the answer times. */
async function sample(call, every, stop) {
  const times = [];
  while (!stop()) {
    const t0 = process.hrtime.bigint();
    await call();
    const took = ms(t0);
    times.push(took);
    if (took < every) await sleep(every - took);
  }
  return times;
}

const latency = (times) => ({ n: times.length, p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: Math.max(...times) });

/**
 * Runs the review bench on `rows` rows, prints its table and answers its figures in the form
 * bench/pipeline.bench.js reports (its `review` case): the count against a bare papaparse pass,
 * and the slowest page of rows with problems once the count is done against issue 28's 300 ms.
 */
async function reviewLarge({ rows = ROWS } = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-review-'));
  let svc;
  try {
    const file = path.join(work, 'customers.csv');
    const t = process.hrtime.bigint();
    const { planted, rowsWithProblems } = await generateCsv(file, rows);
    const bytes = fs.statSync(file).size;
    console.log(
      `generated ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB, ${rowsWithProblems} rows with a planted problem, in ${fmt(ms(t) / 1000)} s`,
    );

    // Baseline: median of three bare passes, before the service starts (nothing else of ours runs).
    const bare = [];
    for (let i = 0; i < 3; i++) bare.push(await barePapaparse(file));
    const bareSeconds = median(bare.map((b) => b.seconds));
    if (bare[0].rows !== rows + 1) throw new Error(`papaparse read ${bare[0].rows} rows, expected ${rows + 1}`);
    console.log(`baseline: bare papaparse array pass ${bare.map((b) => fmt(b.seconds, 2)).join(', ')} s (median ${fmt(bareSeconds, 2)} s)`);

    svc = await startService({ dataDir: path.join(work, 'data') });
    const org = await svc.organization(FIELDS);
    if (!org.apiKey || !org.schemaId) throw new Error('the organization or its schema was not created');
    const { auth, runUrl, ready, uploadSeconds, reviewReadySeconds, review } = await openReview(svc, org, file, 'customers.csv');
    console.log(`upload ${fmt(uploadSeconds, 2)} s; review active after ${fmt(reviewReadySeconds, 2)} s, ${ready.total_rows} rows`);

    const post = (call, body) => timed(review(call), { method: 'POST', body: JSON.stringify(body) });

    const state = await timed(review('state'));
    const preview1 = await post('preview', { mapping_rule: MAPPING });
    const preview2 = await post('preview', { mapping_rule: MAPPING });
    if (preview1.body.rows.length !== 20) throw new Error(`the preview has ${preview1.body.rows.length} rows`);

    // The cheap call, idle: the baseline of the responsiveness figure.
    let n = 0;
    const idleTimes = await sample(
      () => timed(runUrl, { headers: auth }),
      SAMPLE_MS,
      () => n++ >= IDLE_SAMPLES,
    );
    const idle = latency(idleTimes);

    // The count: started without waiting, as the page does; a waiting call beside it gives the exact end.
    const t0 = process.hrtime.bigint();
    const started = await post('problems', { mapping_rule: MAPPING, wait: false });
    if (started.body.status !== 'counting') throw new Error(`the count answered ${started.body.status} at once, not counting`);
    let countDone = false;
    const waited = post('problems', { mapping_rule: MAPPING, wait: true }).then((r) => {
      countDone = true;
      return { ...r, atMs: ms(t0) };
    });
    // Page 1 of the rows with problems, asked while the count runs.
    const firstPageDuring = post('problem-rows', { mapping_rule: MAPPING, page: 1 }).then((r) => ({
      ...r,
      askedWhileCounting: true,
      countDoneWhenAnswered: countDone,
    }));
    const busyTimesP = sample(
      () => timed(runUrl, { headers: auth }),
      SAMPLE_MS,
      () => countDone,
    );
    const polls = [];
    let final;
    for (;;) {
      await sleep(COUNT_POLL_MS);
      const p = await post('problems', { mapping_rule: MAPPING, wait: false });
      polls.push({ atMs: ms(t0), ms: p.ms, status: p.body.status, rows_checked: p.body.rows_checked });
      if (p.body.status === 'counted') {
        final = p.body;
        break;
      }
      if (p.body.status !== 'counting') throw new Error(`the count answered ${p.body.status}`);
    }
    const count = await waited;
    const busy = latency(await busyTimesP);
    const during = await firstPageDuring;
    const countSeconds = count.atMs / 1000;
    if (count.body.status !== 'counted') throw new Error(`the waiting count answered ${count.body.status}`);

    const progress = polls.filter((p) => p.status === 'counting').map((p) => p.rows_checked);
    const increasing = progress.every((x, i) => i === 0 || x >= progress[i - 1]);
    const distinct = new Set(progress.filter((x) => x > 0)).size;

    // Pages once the count is done.
    const lastPage = Math.max(1, Math.ceil(final.rows_with_problems / PER_PAGE));
    const farPage = Math.min(FAR_PAGE, lastPage);
    const page1 = await post('problem-rows', { mapping_rule: MAPPING, page: 1 });
    const far = await post('problem-rows', { mapping_rule: MAPPING, page: farPage });
    const last = await post('problem-rows', { mapping_rule: MAPPING, page: lastPage });
    const filtered = await post('problem-rows', { mapping_rule: MAPPING, field: 'email', kind: 'type', page: 1 });
    const filteredLastPage = Math.max(1, Math.ceil(filtered.body.matching / PER_PAGE));
    const filteredLast = await post('problem-rows', { mapping_rule: MAPPING, field: 'email', kind: 'type', page: filteredLastPage });
    const peakRss = svc.peakRssMb();

    // Checks of what the service answered (errors only when the answers are not what was asked).
    const checks = [];
    const check = (ok, what) => ok || checks.push(what);
    check(final.rows_checked === rows, `count checked ${final.rows_checked} rows, not ${rows}`);
    check(
      final.rows_with_problems === rowsWithProblems,
      `count found ${final.rows_with_problems} rows with problems, planted ${rowsWithProblems}`,
    );
    for (const [f, kinds] of Object.entries(planted))
      for (const [k, v] of Object.entries(kinds))
        check(
          final.problems_by_field_and_kind[f]?.[k] === v,
          `${f}/${k}: counted ${final.problems_by_field_and_kind[f]?.[k]}, planted ${v}`,
        );
    check(
      during.body.rows.length === PER_PAGE && during.body.matching === rowsWithProblems,
      'page 1 during the count is not full or miscounted',
    );
    check(page1.body.rows.length === PER_PAGE, `page 1 has ${page1.body.rows.length} rows`);
    check(far.body.rows.length === PER_PAGE || farPage === lastPage, `page ${farPage} has ${far.body.rows.length} rows`);
    check(last.body.rows.length === rowsWithProblems - (lastPage - 1) * PER_PAGE, `the last page has ${last.body.rows.length} rows`);
    check(filtered.body.matching === planted.email.type, `e-mail/type matches ${filtered.body.matching}, planted ${planted.email.type}`);
    check(
      filtered.body.rows.every((r) => r.cells.email.problem === 'type'),
      'a row of the e-mail/type page has no type problem in its e-mail',
    );
    check(increasing, `rows_checked went down between polls: ${progress.join(', ')}`);

    const pollMs = polls.map((p) => p.ms);
    const table = [
      ['figure', 'measured', 'baseline (same run)', 'ratio'],
      ['state', `${fmt(state.ms)} ms`, '', ''],
      ['preview (20 rows)', `${fmt(preview1.ms)} ms first, ${fmt(preview2.ms)} ms again`, '', ''],
      [
        `count of ${rows} rows (wait: false, polled every ${COUNT_POLL_MS / 1000} s)`,
        `${fmt(countSeconds, 2)} s; ${polls.length} polls (answer p50 ${fmt(median(pollMs))} ms, max ${fmt(Math.max(...pollMs))} ms); ` +
          `rows_checked ${increasing ? 'never fell' : 'FELL'}, ${distinct} different values before done: ${progress.join(', ')}`,
        `bare papaparse array pass ${fmt(bareSeconds, 2)} s`,
        fmt(bareSeconds / countSeconds, 3),
      ],
      [
        'problem rows page 1, asked as the count started',
        `${fmt(during.ms)} ms (count done ${fmt(count.atMs)} ms after its start; page answered ${during.countDoneWhenAnswered ? 'after' : 'before'} it)`,
        '',
        '',
      ],
      ['problem rows page 1, count done', `${fmt(page1.ms)} ms`, '', ''],
      [`problem rows page ${farPage}, count done`, `${fmt(far.ms)} ms`, '', ''],
      [`problem rows last page (${lastPage}), count done`, `${fmt(last.ms)} ms`, '', ''],
      [`email/type page 1 (${filtered.body.matching} matching)`, `${fmt(filtered.ms)} ms`, '', ''],
      [`email/type last page (${filteredLastPage})`, `${fmt(filteredLast.ms)} ms`, '', ''],
      [
        'GET of the run during the count',
        `p50 ${fmt(busy.p50)} ms, p95 ${fmt(busy.p95)} ms, max ${fmt(busy.max)} ms (${busy.n} calls)`,
        `idle p50 ${fmt(idle.p50)} ms, p95 ${fmt(idle.p95)} ms, max ${fmt(idle.max)} ms (${idle.n} calls)`,
        `p50 ${fmt(idle.p50 / busy.p50, 3)}, p95 ${fmt(idle.p95 / busy.p95, 3)}`,
      ],
      ['service peak RSS (VmHWM)', `${fmt(peakRss, 0)} MB`, `target < ${RSS_TARGET_MB} MB`, peakRss < RSS_TARGET_MB ? 'met' : 'NOT met'],
    ];
    console.log(
      `\nReview of ${rows} rows (${(bytes / 1e6).toFixed(0)} MB, ${final.rows_with_problems} rows with problems), heap cap ${process.env.HEAP_MB || require('../package.json').config.heap_mb} MB`,
    );
    console.log(`| ${table[0].join(' | ')} |\n|${table[0].map(() => '---').join('|')}|`);
    for (const row of table.slice(1)) console.log(`| ${row.join(' | ')} |`);
    console.log(`(ratio = baseline / measured: 1 is as fast as the baseline, lower is slower)`);
    if (checks.length > 0) throw new Error(`answers not as expected:\n  ${checks.join('\n  ')}`);
    const pages = [page1.ms, far.ms, last.ms, filtered.ms, filteredLast.ms];
    const slowest = Math.max(...pages);
    return [
      {
        name: `Review of ${rows} rows: the whole-file count`,
        measured: `${fmt(countSeconds, 2)} s`,
        baseline: `bare papaparse array pass ${fmt(bareSeconds, 2)} s`,
        ratio: bareSeconds / countSeconds,
        target: null,
        peakRssMb: peakRss,
      },
      {
        name: `Review of ${rows} rows: pages of rows with problems once counted (1, ${farPage}, last ${lastPage}; e-mail/type 1 and last)`,
        measured: `${pages.map((x) => fmt(x)).join(' / ')} ms`,
        baseline: 'issue 28: any page under 300 ms',
        ratio: null,
        target: null,
        limit: { what: 'slowest page', value: slowest, max: PAGE_TARGET_MS, unit: 'ms' },
        peakRssMb: peakRss,
      },
    ];
  } finally {
    await svc?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module)
  reviewLarge().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });

module.exports = { reviewLarge };
