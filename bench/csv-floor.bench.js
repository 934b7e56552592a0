/* What the CSV target asks of this machine, without the service: the least work any
 * implementation must do for the CSV case, hand-written for its one schema, against the
 * same baseline (a bare papaparse object parse), in one run.
 *
 *   check   every row read once before review: the service's own scan (libs/tabular's RowScanner, from
 *           dist/: row ends, field counts, blank rows, no row built), over 64 KiB pieces
 *   output  every row parsed again, the schema's transformations applied (trim, lowercase,
 *           uppercase, dd/MM/yyyy -> yyyy-MM-dd by a regular expression) and written as JSON
 *   upload  the file PUT by the csv case's own client (service.js's putFile) to a bare Node
 *           server in a process of its own that stores it and fsyncs it (lib/bare-receiver.js)
 *
 * The check and the output are timed on one thread and split at a row boundary over two threads
 * (the split is found before the clock starts). The floor of the csv case's whole interval
 * (upload -> review-ready, approve -> output-ready) on two threads adds the upload at best
 * overlapped with the check, which can follow the bytes as they arrive: the longer of the two,
 * then the output. Not timed at all: the event store, the HTTP API, the type checks, the run's
 * bookkeeping. If even these bounds stay under the target, the target is beyond this machine,
 * whatever the service does.
 *
 *   npm run bench:floor          (builds first; BENCH_ROWS, default 1,000,000; FLOOR_ROUNDS, default 3)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker, isMainThread, workerData, parentPort } = require('node:worker_threads');
const { fork } = require('node:child_process');
const Papa = require('papaparse');
const { generateCsv } = require('./cases/csv-pipeline');
const { putFile } = require('./lib/service');

function parseRange(file, start, end, onRows) {
  return new Promise((resolve, reject) => {
    const stream = fs.createReadStream(file, { start, end: end - 1 });
    stream.setEncoding('utf8');
    Papa.parse(stream, { chunk: (r) => onRows(r.data), complete: resolve, error: reject });
  });
}

const DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;

async function writeJson(file, start, end, outFile) {
  const out = fs.createWriteStream(outFile);
  let header = start === 0;
  await parseRange(file, start, end, (rows) => {
    let text = '';
    for (const r of rows) {
      if (header) {
        header = false;
        continue;
      }
      const m = DATE.exec(r[3]);
      text += `{"email":${JSON.stringify(r[1].trim().toLowerCase())},"name":${JSON.stringify(r[2].toUpperCase())},"birth_date":${JSON.stringify(m ? `${m[3]}-${m[2]}-${m[1]}` : null)},"city":${JSON.stringify(r[4])}},\n`;
    }
    out.write(text);
  });
  await new Promise((r) => out.end(r));
}

async function countRows(file, start, end) {
  const { RowScanner } = require('../dist/libs/tabular/src/readers/row-scanner');
  const scanner = new RowScanner(',', '\n', { maxRows: Infinity, maxColumns: Infinity, maxFieldChars: Infinity });
  const stream = fs.createReadStream(file, { start, end: end - 1 });
  stream.setEncoding('utf8');
  for await (const chunk of stream) for (let i = 0; i < chunk.length; i += 65536) scanner.feed(chunk.slice(i, i + 65536));
  scanner.end();
  return scanner.rows;
}

const inThread = (task, file, start, end, out) =>
  new Promise((resolve, reject) =>
    new Worker(__filename, { workerData: { task, file, start, end, out } }).once('message', resolve).once('error', reject),
  );
const seconds = async (work) => {
  const t0 = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
const bare = (file) =>
  seconds(
    () =>
      new Promise((resolve, reject) => {
        const stream = fs.createReadStream(file);
        stream.setEncoding('utf8');
        Papa.parse(stream, { header: true, step: () => {}, complete: resolve, error: reject });
      }),
  );
/** The first row start at or after the middle of the file (the bench file has no line breaks inside quotes). */
function middle(file) {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(4096);
  fs.readSync(fd, buf, 0, buf.length, Math.floor(size / 2));
  fs.closeSync(fd);
  return { size, mid: Math.floor(size / 2) + buf.indexOf(10) + 1 };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A bare receiver (lib/bare-receiver.js) in a process of its own: `upload(file)` times one PUT of the file to it. */
async function bareReceiver() {
  // Bare: none of the bench's own node flags (a CPU profile, heap caps) reach it.
  const child = fork(path.join(__dirname, 'lib', 'bare-receiver.js'), { execArgv: [] });
  const port = await new Promise((resolve, reject) =>
    child
      .once('message', resolve)
      .once('error', reject)
      .once('exit', (code) => reject(new Error(`the bare receiver exited (${code}) before it listened`))),
  );
  return {
    upload: (file) =>
      seconds(async () => {
        const status = await putFile(`http://127.0.0.1:${port}/upload`, {}, file);
        if (status !== 200) throw new Error(`the bare receiver answered ${status}`);
      }),
    stop: () => child.disconnect(),
  };
}

/**
 * The floor of `rows` rows over `rounds` rounds (rounds printed as they end): the median
 * ratio to a bare papaparse object parse on one thread and on two. Also bench/pipeline.bench.js's
 * `floor` case, which sets the `csv` case's ratio against the two-thread floor of the same run.
 */
async function csvFloor({ rows = Number(process.env.BENCH_ROWS || 1_000_000), rounds = Number(process.env.FLOOR_ROUNDS || 3) } = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-floor-'));
  let receiver = null;
  try {
    const file = path.join(work, 'input.csv');
    await generateCsv(file, rows);
    const { size, mid } = middle(file);
    receiver = await bareReceiver();
    const one = [];
    const two = [];
    const withUpload = []; // per round: the ratio and its upload
    for (let i = 0; i < rounds; i++) {
      const base = await bare(file);
      const upload = await receiver.upload(file);
      const check1 = await seconds(() => inThread('check', file, 0, size));
      const output1 = await seconds(() => inThread('output', file, 0, size, path.join(work, 'out.json')));
      const check2 = await seconds(() => Promise.all([inThread('check', file, 0, mid), inThread('check', file, mid, size)]));
      const output2 = await seconds(() =>
        Promise.all([
          inThread('output', file, 0, mid, path.join(work, 'out0.json')),
          inThread('output', file, mid, size, path.join(work, 'out1.json')),
        ]),
      );
      one.push(base / (check1 + output1));
      two.push(base / (check2 + output2));
      withUpload.push({ ratio: base / (Math.max(upload, check2) + output2), upload });
      console.log(
        `round ${i + 1}: bare ${base.toFixed(2)} s; one thread: check ${check1.toFixed(2)} s + output ${output1.toFixed(2)} s; ` +
          `two threads: check ${check2.toFixed(2)} s + output ${output2.toFixed(2)} s; the upload to a bare receiver ${upload.toFixed(2)} s`,
      );
    }
    // The median round's ratio with its own upload.
    const middleRound = [...withUpload].sort((a, b) => a.ratio - b.ratio)[Math.floor(withUpload.length / 2)];
    return { rows, rounds, one: median(one), two: median(two), twoWithUpload: middleRound.ratio, upload: middleRound.upload };
  } finally {
    receiver?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (!isMainThread) {
  const { task, file, start, end, out } = workerData;
  (task === 'output' ? writeJson(file, start, end, out) : countRows(file, start, end)).then(() => parentPort.postMessage('done'));
} else if (require.main === module) {
  csvFloor()
    .then(({ rows, rounds, one, two, twoWithUpload, upload }) => {
      console.log(`\nCSV ${rows} rows, the least work, median of ${rounds} rounds (target of the service: ratio >= 0.5)`);
      console.log(`| threads | ratio to a bare papaparse object parse |\n|---|---|`);
      console.log(`| one | ${one.toFixed(3)} |\n| two | ${two.toFixed(3)} |`);
      console.log(`| two, with the upload (${upload.toFixed(2)} s) overlapped with the check | ${twoWithUpload.toFixed(3)} |`);
    })
    .catch((e) => {
      console.error(e);
      process.exitCode = 1;
    });
}

module.exports = { csvFloor };
