/* A 1M-row text file read again in another encoding, through the service, timed two ways:
 *   past-ascii: upload -> review-ready of a file that is ASCII for its first 7,000 rows and windows-1252
 *               after (ingestion's first read fails as UTF-8, and the file is read again in the code page);
 *   choice:     POST /review/:id/encoding of a UTF-8 file the reviewer chooses to read as windows-1252, once
 *               the reviews' counts are done.
 * Each against a bare read of the same file in the same run (the file read, decoded as windows-1252 and
 * parsed by papaparse into arrays, in this process; the median of three), as a ratio: that least cost of a
 * read in the encoding over the service's whole interval (higher is faster). `BENCH_DIST` runs another build
 * (an A/B between builds, alternating runs); `REREAD_ROUNDS` (default 2). Run it after `npm run build`:
 *   node bench/encoding-reread.bench.js */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Papa = require('papaparse');
const { startService } = require('./lib/service');
const { timed, openReview } = require('./lib/review-session');

const ROWS = 1_000_000;
const FIELDS = {
  email: { description: 'e-mail', data_type: 'email', is_required: true },
  city: { description: 'city', data_type: 'string', is_required: false },
};

/** One accented place every 1,000th row from row 7,000: nothing past ASCII in the first 64 KiB detection reads. */
function writeFile(file, encoding) {
  const lines = ['id,email,name,city'];
  for (let n = 0; n < ROWS; n++) lines.push(`${n},user${n}@example.com,Name ${n},${n >= 7000 && n % 1000 === 0 ? 'Ærøskøbing' : 'Odense'}`);
  fs.writeFileSync(file, Buffer.from(lines.join('\n') + '\n', encoding));
}

const secondsOfReview = (opened) => opened.reviewReadySeconds - opened.uploadSeconds;

/** The file read, decoded and parsed into rows of arrays, in seconds: the median of three. */
function bareRead(file) {
  const times = [0, 1, 2].map(() => {
    const t0 = process.hrtime.bigint();
    const text = new TextDecoder('windows-1252').decode(fs.readFileSync(file));
    const rows = Papa.parse(text, { delimiter: ',', newline: '\n' }).data.length;
    if (rows < ROWS) throw new Error(`the bare read found ${rows} rows`);
    return Number(process.hrtime.bigint() - t0) / 1e9;
  });
  return times.sort((a, b) => a - b)[1];
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'encoding-reread-'));
  const latin = path.join(work, 'latin.csv');
  const utf = path.join(work, 'utf.csv');
  writeFile(latin, 'latin1');
  writeFile(utf, 'utf8');
  const svc = await startService({ dataDir: path.join(work, 'data') });
  try {
    const org = await svc.organization(FIELDS);
    const rounds = Number(process.env.REREAD_ROUNDS || 2);
    for (let round = 1; round <= rounds; round++) {
      const first = await openReview(svc, org, utf, 'utf.csv');
      const past = await openReview(svc, org, latin, 'latin.csv');
      // The reviews' whole-file counts done first: the choice's read has both threads, not one beside a count.
      for (const opened of [first, past]) {
        const { mapping_rule } = (await timed(opened.review('state'))).body;
        await timed(opened.review('problems'), { method: 'POST', body: JSON.stringify({ mapping_rule }) });
      }
      const t0 = process.hrtime.bigint();
      const chosen = await timed(first.review('encoding'), { method: 'POST', body: JSON.stringify({ encoding: 'windows-1252' }) });
      const choiceSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const state = await timed(past.review('state'));
      if (state.body.encoding !== 'windows-1252') throw new Error(`the past-ASCII file was read as ${state.body.encoding}`);
      if (chosen.body.encoding !== 'windows-1252') throw new Error(`the choice read ${chosen.body.encoding}`);
      const bare = bareRead(latin);
      console.log(
        JSON.stringify({
          build: process.env.BENCH_DIST || 'dist',
          round,
          bare_read_s: +bare.toFixed(2),
          past_ascii_s: +secondsOfReview(past).toFixed(2),
          past_ascii_ratio: +(bare / secondsOfReview(past)).toFixed(2),
          choice_s: +choiceSeconds.toFixed(2),
          choice_ratio: +(bare / choiceSeconds).toFixed(2),
          peak_rss_mb: Math.round(svc.peakRssMb()),
        }),
      );
    }
  } finally {
    await svc.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
