/* XLSX read benchmark: a workbook written by exceljs's streaming writer (shared strings,
 * dates, numbers, booleans, formulas, rich text, sparse cells; the shared strings stored
 * after the sheet, as Excel and exceljs store them), read through our openXlsx once
 * against two bare exceljs streaming reads (WorkbookReader, every row iterated): the
 * exceljs-based reader read a source twice, at ingestion and for the output.
 * Each timing is the best of BENCH_REPEAT runs (the machine is shared and noisy).
 *   npm run build && node bench/xlsx-read.bench.js
 *   BENCH_XLSX_ROWS (default 200000), BENCH_REPEAT (default 3),
 *   BENCH_TABULAR (the built tabular library; default dist/libs/tabular/src/index.js)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Readable } = require('node:stream');
const ExcelJS = require('exceljs');

const ROWS = Number(process.env.BENCH_XLSX_ROWS || 200_000);
const REPEAT = Number(process.env.BENCH_REPEAT || 3);
const { openXlsx } = require(process.env.BENCH_TABULAR || path.join(__dirname, '..', 'dist/libs/tabular/src/index.js'));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-xlsx-'));
const file = path.join(work, 'input.xlsx');
const cities = ['Oslo', 'Köln', 'Łódź', 'São Paulo', 'Zürich & Co'];

async function generate() {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: true });
  const ws = wb.addWorksheet('Data');
  ws.addRow(['id', 'name', 'city', 'signup', 'amount', 'active', 'double', 'note', '', 'sparse']).commit();
  for (let i = 0; i < ROWS; i++) {
    const row = ws.addRow([
      i,
      `user ${i}`,
      cities[i % cities.length],
      new Date(Date.UTC(2000, 0, 1) + i * 3_600_000),
      i * 0.25 - 1000,
      i % 2 === 0,
      { formula: `A${i + 2}*2`, result: i * 2 },
      i % 10 === 0 ? { richText: [{ text: 'bold', font: { bold: true } }, { text: ' note' }] } : null,
    ]);
    if (i % 7 === 0) row.getCell(10).value = `sparse ${i}`;
    row.commit();
  }
  ws.commit();
  await wb.commit();
}

async function exceljsRead() {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(fs.createReadStream(file), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let rows = 0;
  for await (const sheet of reader) for await (const _row of sheet) rows++;
  return rows;
}

async function ourRead(source, packageChecked) {
  const table = await openXlsx(source(), undefined, undefined, { packageChecked });
  let rows = 0;
  for await (const batch of table.batches) rows += batch.length;
  return rows;
}

async function best(read) {
  let seconds = Infinity;
  let rows = 0;
  for (let i = 0; i < REPEAT; i++) {
    const t0 = process.hrtime.bigint();
    rows = await read();
    seconds = Math.min(seconds, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return { seconds, rows };
}

(async () => {
  try {
    const t0 = Date.now();
    await generate();
    console.log(`generated ${ROWS} rows, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const local = () => fs.createReadStream(file);
    const remote = () => Readable.from(fs.createReadStream(file)); // not a file stream: spooled, as from object storage
    const excel = await best(exceljsRead);
    const ours = await best(() => ourRead(local, false));
    const oursSpooled = await best(() => ourRead(remote, false));
    const oursStored = await best(() => ourRead(local, true));
    const two = 2 * excel.seconds;
    const line = (name, r) => `${name.padEnd(58)} ${r.seconds.toFixed(2).padStart(6)} s  ${String(r.rows).padStart(7)} rows`;
    console.log(line('exceljs WorkbookReader, one read', excel));
    console.log(`${'exceljs WorkbookReader, two reads (the baseline)'.padEnd(58)} ${two.toFixed(2).padStart(6)} s`);
    console.log(line('openXlsx, local file (package check + read)', ours));
    console.log(line('openXlsx, spooled stream (package check + read)', oursSpooled));
    console.log(line('openXlsx, stored source (read only, check done)', oursStored));
    console.log(`ratio two exceljs reads / one openXlsx read: ${(two / ours.seconds).toFixed(2)}x`);
    console.log(`ratio one exceljs read / one openXlsx read:  ${(excel.seconds / ours.seconds).toFixed(2)}x`);
    if (ours.rows !== excel.rows) console.log(`row counts differ: exceljs ${excel.rows}, ours ${ours.rows}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
})();
