/* Peak memory on large and hostile files: each case gets a fresh service process (the heap
 * cap `npm start` uses) and reports its peak RSS (VmHWM) and how the run ended.
 *   npm run bench:large            all cases
 *   LARGE_CASES=field,bomb npm run bench:large
 *   LARGE_CSV_MB (default 1024)    size of the big CSV
 *   LARGE_LONG_ROWS_MB (default 200) size of the file of rows of 1 MB (the longest row MAX_ROW_CHARS lets in)
 *   LARGE_STRINGS_ROWS (default 70) rows of the workbook of long shared strings (30 cells of 30,000 characters each)
 *   LARGE_MANY_STRINGS_ROWS (default 980000) rows of the workbook of short shared strings (5 cells of 9 characters each)
 * Files are generated here, streamed to a temporary folder, and removed afterwards.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PassThrough, Readable } = require('node:stream');
const yazl = require('yazl');

/** The folder files are generated in, made by largeFiles() for its run. */
let work;
const { serviceNodeFlags, serviceMallocEnv } = require('../scripts/service-memory-settings');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The service refuses an ADMIN_TOKEN shorter than 32 characters. */
const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123';
const status = (pid, key) =>
  Number((new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8')) || [])[1]) / 1024;

async function writeFile(file, chunks) {
  const out = fs.createWriteStream(file);
  for await (const chunk of chunks) if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
  await new Promise((r) => out.end(r));
  return fs.statSync(file).size;
}

/** About `mb` megabytes of CSV, rows of ~200 bytes. */
function* bigCsv(mb) {
  yield 'id,email,first_name,last_name,city,amount,signup_date,notes\n';
  const target = mb * 1024 * 1024;
  let size = 0;
  let batch = '';
  for (let i = 0; size < target; i++) {
    const line = `${i},user${i}@example.com,Jörg${i % 97},Müller-${i % 1013},"Köln, DE",${(i * 7.31).toFixed(2)},2024-0${1 + (i % 9)}-1${i % 10},"${'lorem ipsum dolor sit amet '.repeat(4)}"\n`;
    batch += line;
    size += line.length;
    if (batch.length > 1 << 20) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

/**
 * About `mb` megabytes of rows of just under 1 MB each, the longest MAX_ROW_CHARS' default lets in (1,000,000
 * characters): short cells, then four quoted notes of text with commas and doubled quotes, each just under
 * MAX_FIELD_CHARS' default (262,144). Parsers that read an unfinished row again with each piece of text took 16.8 s
 * for the output of 100 MB of such rows (bench/README.md, "The fifty-seventh session").
 */
function* longRowsCsv(mb) {
  yield 'id,email,first_name,city,notes,summary,details,comments\n';
  const words = 'lorem ipsum, dolor ""sit"" amet ';
  const note = words.repeat(Math.floor(240_000 / words.length));
  for (let i = 0, size = 0; size < mb * 1024 * 1024; i++) {
    const line = `${i},user${i}@example.com,Jörg${i % 97},"Köln, DE","${i} ${note}","${note}","${note}","${note}"\n`;
    size += line.length;
    yield line;
  }
}

/** One row whose second field is 60 MB long. */
function* hugeField() {
  yield 'id,notes\n1,"';
  const block = 'x'.repeat(1 << 20);
  for (let i = 0; i < 60; i++) yield block;
  yield '"\n';
}

/** The XML parts every generated workbook has besides its sheet (and shared strings, when `sharedStrings`). */
function workbookParts({ sharedStrings = false } = {}) {
  const strings = sharedStrings
    ? {
        types:
          '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>',
        rel: '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>',
      }
    : { types: '', rel: '' };
  return {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>${strings.types}</Types>`,
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    'xl/workbook.xml':
      '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>',
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>${strings.rel}</Relationships>`,
  };
}

/** A workbook whose sheet XML inflates to `gb` gigabytes, deflated on the fly. */
function sheetBomb(gb) {
  const zip = new yazl.ZipFile();
  for (const [name, xml] of Object.entries(workbookParts())) zip.addBuffer(Buffer.from(xml), name);
  const rows = Readable.from(
    (function* () {
      yield '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
      const row = `<row><c t="inlineStr"><is><t>${'A'.repeat(1000)}</t></is></c></row>`;
      const block = row.repeat(1000);
      for (let written = 0; written < gb * 1024 ** 3; written += block.length) yield block;
      yield '</sheetData></worksheet>';
    })(),
  );
  zip.addReadStream(rows, 'xl/worksheets/sheet1.xml', { compressionLevel: 9 });
  zip.end();
  return zip.outputStream.pipe(new PassThrough());
}

/**
 * A workbook of `rows` rows under a header row of `header` (inline strings), each cell a distinct shared string:
 * string `i` is `text(i)`, in the order the cells refer to them. Every read of such a workbook holds the whole table
 * of shared strings while its sheet streams.
 */
function sharedStringsWorkbook({ rows, header, text }) {
  const columns = header.length;
  const count = rows * columns;
  /** The pieces `make` yields, gathered into chunks of 64 KiB or more (millions of small yields made yazl slow). */
  const gathered = (make) =>
    Readable.from(
      (function* () {
        let chunk = '';
        for (const piece of make()) {
          chunk += piece;
          if (chunk.length >= 65_536) {
            yield chunk;
            chunk = '';
          }
        }
        if (chunk) yield chunk;
      })(),
    );
  const strings = gathered(function* () {
    yield `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${count}" uniqueCount="${count}">`;
    for (let i = 0; i < count; i++) yield `<si><t>${text(i)}</t></si>`;
    yield '</sst>';
  });
  const letter = (i) => String.fromCharCode(65 + i);
  const cellRef = (c, r) => `${c < 26 ? letter(c) : letter(Math.floor(c / 26) - 1) + letter(c % 26)}${r}`; // to column ZZ
  const sheet = gathered(function* () {
    yield '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
    yield `<row r="1">${header.map((h, c) => `<c r="${cellRef(c, 1)}" t="inlineStr"><is><t>${h}</t></is></c>`).join('')}</row>`;
    for (let r = 0; r < rows; r++) {
      let row = `<row r="${r + 2}">`;
      for (let c = 0; c < columns; c++) row += `<c r="${cellRef(c, r + 2)}" t="s"><v>${r * columns + c}</v></c>`;
      yield `${row}</row>`;
    }
    yield '</sheetData></worksheet>';
  });
  const zip = new yazl.ZipFile();
  for (const [name, xml] of Object.entries(workbookParts({ sharedStrings: true }))) zip.addBuffer(Buffer.from(xml), name);
  zip.addReadStream(strings, 'xl/sharedStrings.xml', { compressionLevel: 6 });
  zip.addReadStream(sheet, 'xl/worksheets/sheet1.xml', { compressionLevel: 6 });
  zip.end();
  return zip.outputStream.pipe(new PassThrough());
}

/**
 * `rows` rows of 30 cells, each a distinct shared string of 30,000 characters (words drawn at random, so it deflates
 * about 6:1): about 63 MB of shared strings for 70 rows, just under the table's budget (1/16 of
 * MAX_XLSX_UNPACKED_BYTES' default). The sixtieth session found such a workbook going over 256 MB (bench/README.md).
 */
function longSharedStrings(rows) {
  const CHARS = 30_000;
  const words =
    'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua Köln Zürich'.split(
      ' ',
    );
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const text = (n) => {
    let s = `${n}`;
    while (s.length < CHARS) s += ` ${words[Math.floor(random() * words.length)]}`;
    return s.slice(0, CHARS);
  };
  const header = ['id', 'email', 'first_name', 'city', 'amount', 'notes'];
  for (let c = header.length; c < 30; c++) header.push(`text_${c}`);
  return sharedStringsWorkbook({ rows, header, text });
}

/**
 * `rows` rows of 5 cells, each a distinct shared string of 9 characters: for 980,000 rows, 4.9 million strings, the
 * table's budget's worth of short ones (their text and an offset each), as a list of a million people exported from
 * Excel has. The sixty-first session found their offsets held twice over as they grew (bench/README.md).
 */
const manySharedStrings = (rows) =>
  sharedStringsWorkbook({ rows, header: ['id', 'email', 'first_name', 'city', 'notes'], text: (i) => `s${String(i).padStart(8, '0')}` });

const CASES = {
  csv: { filename: 'big.csv', approve: true, make: (file) => writeFile(file, bigCsv(Number(process.env.LARGE_CSV_MB || 1024))) },
  rows: {
    filename: 'long-rows.csv',
    approve: true,
    make: (file) => writeFile(file, longRowsCsv(Number(process.env.LARGE_LONG_ROWS_MB || 200))),
  },
  field: { filename: 'field.csv', make: (file) => writeFile(file, hugeField()) },
  bomb: { filename: 'bomb.xlsx', make: (file) => writeFile(file, sheetBomb(4)) },
  strings: {
    filename: 'long-strings.xlsx',
    approve: true,
    make: (file) => writeFile(file, longSharedStrings(Number(process.env.LARGE_STRINGS_ROWS || 70))),
  },
  'many-strings': {
    filename: 'many-strings.xlsx',
    approve: true,
    make: (file) => writeFile(file, manySharedStrings(Number(process.env.LARGE_MANY_STRINGS_ROWS || 980_000))),
  },
};

async function startService() {
  const port = 3990 + Math.floor(Math.random() * 9);
  const base = `http://127.0.0.1:${port}`;
  const dist = process.env.BENCH_DIST || 'dist';
  const child = spawn(process.execPath, [...serviceNodeFlags(process.env), path.join(dist, 'apps/standalone/src/main.js')], {
    env: {
      ...process.env,
      ...serviceMallocEnv(process.env),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(work, `data-${port}`),
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      PUBLIC_BASE_URL: base,
      RATE_LIMIT_PER_MINUTE: '100000',
      MAX_UPLOAD_BYTES: String(8 * 1024 ** 3),
      MAX_ROWS: '100000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/openapi.json`);
      break;
    } catch {
      if (i > 100) throw new Error('service did not start');
      await sleep(100);
    }
  }
  return { base, child };
}

async function runCase(name, spec) {
  const file = path.join(work, spec.filename);
  const t = Date.now();
  const bytes = await spec.make(file);
  console.log(`${name}: generated ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const { base, child } = await startService();
  try {
    const json = async (url, init = {}) =>
      (await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers || {}) } })).json();
    const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };
    const org = await json(`${base}/admin/v1/organizations`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench' }) });
    const field = (data_type) => ({ description: 'x', data_type, is_required: false });
    const schema = await json(`${base}/admin/v1/organizations/${org.id}/schemas`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        name: 'bench',
        fields: {
          email: field('email'),
          first_name: field('string'),
          city: field('string'),
          amount: field('number'),
          notes: field('string'),
        },
      }),
    });
    const auth = { authorization: `Bearer ${org.api_key}` };
    const run = await json(`${base}/v1/transformations/file`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ schema_id: schema.data.id, filename: spec.filename }),
    });
    const poll = async (until) => {
      for (;;) {
        const r = await json(`${base}/v1/transformations/${run.id}`, { headers: auth });
        if (r.status === 'failed' || until(r)) return r;
        await sleep(200);
      }
    };
    const t0 = Date.now();
    const up = await fetch(run.upload.url, { method: 'PUT', headers: run.upload.headers, body: fs.createReadStream(file), duplex: 'half' });
    if (up.status !== 200) throw new Error(`upload ${up.status}`);
    let r = await poll((x) => x.review_state === 'active');
    const reviewSeconds = (Date.now() - t0) / 1000;
    const mbPerSecond = (s) => `${(bytes / 1e6 / s).toFixed(0)} MB/s`;
    let outcome = r.status === 'failed' ? `failed ${r.error.code}` : `review-ready, ${r.total_rows} rows, ${mbPerSecond(reviewSeconds)}`;
    if (spec.approve && r.status !== 'failed') {
      const t1 = Date.now();
      const u = new URL(r.review_url);
      await json(`${u.origin}${u.pathname}/approve${u.search}`, { method: 'POST', body: '{}' });
      r = await poll((x) => x.status === 'completed' && x.stage === 'final');
      outcome +=
        r.status === 'failed'
          ? `, output failed ${r.error.code}`
          : `, output written (${r.processed_rows} rows, ${mbPerSecond((Date.now() - t1) / 1000)})`;
    }
    const peak = status(child.pid, 'VmHWM');
    const seconds = (Date.now() - t0) / 1000;
    console.log(
      `${name}: ${outcome} in ${seconds.toFixed(1)} s; service peak RSS ${peak.toFixed(0)} MB (target < 256 MB: ${peak < 256 ? 'met' : 'NOT met'})`,
    );
    return { name, bytes, outcome, seconds, peak };
  } finally {
    child.kill('SIGTERM');
    await sleep(500);
    fs.rmSync(file, { force: true });
  }
}

/**
 * Runs the chosen cases (LARGE_CASES, default all), each in a fresh service, and answers their
 * figures in the form bench/pipeline.bench.js reports (its `large` case): the peak RSS against
 * 256 MB, with how the run ended.
 */
async function largeFiles() {
  const wanted = (process.env.LARGE_CASES || Object.keys(CASES).join(',')).split(',');
  console.log(`${serviceNodeFlags(process.env).join(' ')}; cases ${wanted.join(', ')}`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-large-'));
  try {
    const results = [];
    for (const name of wanted) {
      if (!CASES[name]) throw new Error(`unknown large case ${name}; known: ${Object.keys(CASES).join(', ')}`);
      const r = await runCase(name, CASES[name]);
      results.push({
        name: `Large file: ${name} (${(r.bytes / 1e6).toFixed(0)} MB), a fresh service`,
        measured: `${r.outcome} in ${r.seconds.toFixed(1)} s`,
        baseline: '-',
        ratio: null,
        target: null,
        peakRssMb: r.peak,
      });
    }
    return results;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module)
  largeFiles().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });

module.exports = { largeFiles };
