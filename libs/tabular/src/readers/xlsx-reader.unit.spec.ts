import { createReadStream, mkdtempSync, promises as fs, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { DEFAULT_TABLE_LIMITS, SourceProblem, type TableLimits } from './source-problem';
import { BATCH_CELLS } from './row-batcher';
import { BATCH_ROWS } from './table-reader';
import * as tempSpool from './temp-spool';
import { partsOf, repack, reorder, storedOrder } from './testing/xlsx-parts';
import { isPrintedNumber } from './xlsx-cell-text';
import { openXlsx } from './xlsx-reader';
import { XlsxPackage } from './xlsx-package';
import { openPackageFile } from './xlsx-source-file';
import { StallWatch } from './xlsx-stall-watch';
import { serialDateText, serialElapsedText, serialTimeText } from './xlsx-cell-text';
import { secondFractionDigits, shownAs, SHOWN_AS_DATE, SHOWN_AS_ELAPSED_TIME, SHOWN_AS_NUMBER, SHOWN_AS_TIME_OF_DAY } from './xlsx-styles';
import { openFilesSettleAt, openFilesUnder } from '../../../../test/support/open-files';

/**
 * The XLSX reader (random access with yauzl, SAX with saxes) on workbooks written by
 * exceljs's streaming writer, in exceljs's (and Excel's) part order and re-packed with
 * the shared strings first; exact cell texts; the stall watchdog; resources released.
 */

const SHEET = 'xl/worksheets/sheet1.xml';
const SHARED_STRINGS = 'xl/sharedStrings.xml';

type Limits = Partial<TableLimits>;
type Options = { stallMs?: number; packageChecked?: boolean };

/** A byte stream that is not a file stream: the reader has to spool it (object storage). */
const chunked = (bytes: Buffer, size = 64 * 1024): Readable =>
  Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    })(),
    { objectMode: false },
  );

const open = (source: Readable, limits: Limits = {}, options: Options = {}) =>
  openXlsx(source, { ...DEFAULT_TABLE_LIMITS, ...limits }, options.stallMs, { packageChecked: options.packageChecked });

async function rowsOf(source: Readable | Buffer, limits: Limits = {}, options: Options = {}): Promise<string[][]> {
  const table = await open(Buffer.isBuffer(source) ? chunked(source) : source, limits, options);
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
}

async function problemOf(source: Buffer | Readable, limits: Limits = {}, options: Options = {}) {
  try {
    await rowsOf(source, limits, options);
  } catch (err) {
    if (err instanceof SourceProblem) return { kind: err.kind, message: err.message };
    throw err;
  }
  throw new Error('expected a SourceProblem');
}

const spoolFiles = () => readdirSync(tmpdir()).filter((f) => f.startsWith('transform-spool-'));
/** The workbooks and spools this process holds open (all of them live under the temporary folder). */
const openTempFiles = () => openFilesUnder(tmpdir());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The watchdog's clock (Date.now) held still: only the time a test lets pass on purpose
 * (`pass`, which also waits that long, so the watchdog's timers run) counts as time, so a CI
 * machine stalled by a GC pause or other work can never make a step look stalled.
 */
function heldClock() {
  let now = Date.now();
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => now);
  return {
    pass: async (ms: number) => {
      now += ms;
      await sleep(ms);
    },
    restore: () => spy.mockRestore(),
  };
}

/** Polls `value` until it is `expected` (or the deadline passes) and returns its last value. */
async function settlesAt<T>(value: () => T, expected: T, deadlineMs = 10_000): Promise<T> {
  for (const deadline = Date.now() + deadlineMs; value() !== expected && Date.now() < deadline;) await sleep(20);
  return value();
}

/** A workbook from exceljs's streaming writer (shared strings, styles), as bytes. */
async function streamedWorkbook(build: (ws: ExcelJS.Worksheet) => void, filename?: string): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    ...(filename ? { filename } : { stream: out }),
    useSharedStrings: true,
    useStyles: true,
  });
  const ws = wb.addWorksheet('Data');
  build(ws);
  ws.commit();
  await wb.commit();
  return filename ? fs.readFile(filename) : Buffer.concat(chunks);
}

/** A small in-memory exceljs workbook whose parts the tests replace. */
async function baseWorkbook(build?: (wb: ExcelJS.Workbook) => void): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  if (build) build(wb);
  else wb.addWorksheet('Data').addRow(['text', 1]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const xml = (body: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${body}`);
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const sheetXml = (rows: string) => xml(`<worksheet xmlns="${MAIN_NS}"><sheetData>${rows}</sheetData></worksheet>`);

/** The base workbook with this sheet and these styles (and shared strings, when given). */
const styledWorkbook = async (sheet: Buffer, styles: Buffer, sharedStrings?: Buffer) =>
  repack(await baseWorkbook(), (p) => {
    p.set(SHEET, sheet);
    p.set('xl/styles.xml', styles);
    if (sharedStrings) p.set(SHARED_STRINGS, sharedStrings);
  });

/** Date text computed independently of the reader: UTC, date only at midnight. */
const isoText = (d: Date) => {
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
};

describe('large workbooks from exceljs streaming writer, in both part orders', () => {
  const ROWS = 100_000;
  const cities = ['Oslo', 'Köln', 'Łódź', 'São Paulo', 'Zürich & Co', '<Tokyo>', '"Quoted" 😀'];
  const header = ['id', 'name', 'city', 'when', 'amount', 'ok', 'double', 'rich', '', 'sparse'];
  const when = (i: number) =>
    new Date(Date.UTC(2000, 0, 1) + i * 86_400_000 + (i % 3 === 0 ? ((i % 24) * 3600 + (i % 60) * 61) * 1000 : 0));
  const amount = (i: number) => i * 0.25 - 1000 + (i % 5) / 100;

  /** Row `i` as written. */
  const written = (i: number): ExcelJS.CellValue[] => [
    i,
    `name ${i} ü`,
    cities[i % 7],
    when(i),
    amount(i),
    i % 2 === 0,
    { formula: `A${i + 2}*2`, result: i * 2 },
    i % 10 === 0 ? { richText: [{ text: `r${i}`, font: { bold: true } }, { text: '-tail' }] } : null,
  ];
  /** Row `i` as it must be read. */
  const expected = (i: number): string[] => {
    const row = [
      String(i),
      `name ${i} ü`,
      cities[i % 7],
      isoText(when(i)),
      String(amount(i)),
      i % 2 === 0 ? 'TRUE' : 'FALSE',
      String(i * 2),
      // exceljs's writer keys shared strings by String(value): every rich text is "[object Object]",
      // so all rich cells of the file hold the first one written (distinct runs: see 'cell texts').
      i % 10 === 0 ? 'r0-tail' : '',
      '',
      i % 7 === 0 ? `sparse ${i}` : '',
    ];
    while (row[row.length - 1] === '') row.pop();
    return row;
  };

  let dir: string;
  let excelOrder: Buffer;
  let sharedStringsFirst: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xlsx-reader-spec-'));
    excelOrder = await streamedWorkbook(
      (ws) => {
        ws.addRow(header).commit();
        for (let i = 0; i < ROWS; i++) {
          const row = ws.addRow(written(i));
          if (i % 7 === 0) row.getCell(10).value = `sparse ${i}`; // J, past an empty I: a sparse cell
          row.commit();
          if (i % 5000 === 4999) ws.addRow([]).commit(); // empty rows are skipped
        }
      },
      join(dir, 'excel-order.xlsx'),
    );
    sharedStringsFirst = join(dir, 'shared-strings-first.xlsx');
    await fs.writeFile(sharedStringsFirst, await reorder(excelOrder, [SHARED_STRINGS, 'xl/styles.xml', 'xl/workbook.xml']));
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function expectWhole(source: Readable) {
    const table = await open(source);
    let read = 0;
    const sizes: { rows: number; cells: number }[] = [];
    const wrong: { row: number; got: string[]; want: string[] }[] = [];
    for await (const batch of table.batches) {
      sizes.push({ rows: batch.length, cells: batch.reduce((n, row) => n + row.length, 0) });
      for (const row of batch) {
        const want = read === 0 ? header : expected(read - 1);
        if (row.length !== want.length || row.some((cell, c) => cell !== want[c])) wrong.push({ row: read, got: row, want });
        read++;
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(read).toBe(ROWS + 1);
    // Every batch but the last is full: by its rows, or (10 columns) by its cells.
    expect(sizes.slice(0, -1).every((n) => n.rows === BATCH_ROWS || n.cells >= BATCH_CELLS)).toBe(true);
    expect(sizes.length).toBeGreaterThan((ROWS + 1) / BATCH_ROWS + 1);
  }

  it("exceljs's order (shared strings after the sheet, as Excel writes) reads whole, from a spooled stream", async () => {
    const order = await storedOrder(excelOrder);
    expect(order.indexOf(SHARED_STRINGS)).toBeGreaterThan(order.indexOf(SHEET));
    const before = spoolFiles().length;
    await expectWhole(chunked(excelOrder));
    expect(spoolFiles().length).toBe(before);
  }, 120_000);

  it('shared strings first reads the same, from the local file where it lies (not copied)', async () => {
    const order = await storedOrder(await fs.readFile(sharedStringsFirst));
    expect(order.indexOf(SHARED_STRINGS)).toBeLessThan(order.indexOf(SHEET));
    const spool = jest.spyOn(tempSpool, 'spoolToTempFile');
    try {
      await expectWhole(createReadStream(sharedStringsFirst));
      expect(spool).not.toHaveBeenCalled();
    } finally {
      spool.mockRestore();
    }
  }, 120_000);

  it('a slow consumer is not the package stalling: the clock stops while the consumer holds a batch', async () => {
    // Held clock: reading 100,000 rows on a loaded machine has GC pauses well over the 100 ms
    // stallMs; only the consumer's holds pass time, and they are longer than stallMs.
    const clock = heldClock();
    try {
      const table = await open(createReadStream(sharedStringsFirst), {}, { stallMs: 100 });
      let read = 0;
      for await (const batch of table.batches) {
        read += batch.length;
        if (read <= 3 * BATCH_ROWS) await clock.pass(250);
      }
      expect(read).toBe(ROWS + 1);
    } finally {
      clock.restore();
    }
  }, 120_000);

  it('a file deleted after its stream opened it (its run purged meanwhile) reads whole through that stream', async () => {
    const file = join(tmpdir(), `xlsx-deleted-${process.pid}.xlsx`);
    await fs.copyFile(sharedStringsFirst, file);
    const source = createReadStream(file);
    await new Promise<void>((resolve, reject) => source.once('ready', () => resolve()).once('error', reject));
    await fs.rm(file);
    // By its path the package is gone: the reader copies what the open stream still reads.
    await expectWhole(source);
  }, 120_000);

  /** Opens the workbook from a spooled and from a file stream, `giveUp` on each table, then expects nothing left open. */
  async function expectReleasedAfter(giveUp: (table: Awaited<ReturnType<typeof open>>, openBefore: string[]) => Promise<void>) {
    // Earlier tests' files finish closing first (none of them should stay open).
    const openBefore = await openFilesSettleAt(tmpdir(), []);
    const spools = spoolFiles().length;
    for (const source of [() => chunked(excelOrder), () => createReadStream(sharedStringsFirst)])
      await giveUp(await open(source()), openBefore);
    // Closing takes some turns of the loop: waits for the counts (up to seconds on a loaded machine) instead of a fixed pause.
    expect(await openFilesSettleAt(tmpdir(), openBefore)).toEqual(openBefore);
    expect(await settlesAt(() => spoolFiles().length, spools)).toBe(spools);
  }

  it('a file stream whose package fails to open by its path (not for being deleted) is let go, and the failure told', async () => {
    const source = createReadStream(sharedStringsFirst);
    await new Promise<void>((resolve, reject) => source.once('ready', () => resolve()).once('error', reject));
    const open = jest
      .spyOn(XlsxPackage, 'open')
      .mockRejectedValueOnce(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }));
    try {
      await expect(openPackageFile(source, new StallWatch(1000))).rejects.toThrow('EMFILE');
      expect(source.destroyed).toBe(true);
    } finally {
      open.mockRestore();
    }
  });

  it('stopping early closes the package: no descriptor or temporary file is left', async () => {
    await expectReleasedAfter(async (table) => {
      for await (const batch of table.batches) {
        expect(batch[0]).toEqual(header);
        break;
      }
    });
  }, 120_000);

  it('rows given up before their first batch close the package too (a generator never started runs no finally)', async () => {
    await expectReleasedAfter(async (table, openBefore) => {
      expect(openTempFiles().length).toBeGreaterThan(openBefore.length);
      await table.batches[Symbol.asyncIterator]().return?.(undefined);
    });
  }, 120_000);
});

describe('cell texts', () => {
  /** What the exceljs-based reader gave: its streaming reader's values through the old cellText. */
  function legacyText(v: unknown): string {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : isoText(v);
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return (o.richText as { text: string }[]).map((r) => r.text).join('');
    if ('result' in o) return legacyText(o.result);
    if ('text' in o) return legacyText(o.text);
    return '';
  }

  async function legacyRows(bytes: Buffer): Promise<string[][]> {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(chunked(bytes), {
      worksheets: 'emit',
      sharedStrings: 'cache',
      styles: 'cache',
      hyperlinks: 'ignore',
      entries: 'ignore',
    });
    const rows: string[][] = [];
    for await (const sheet of reader as unknown as AsyncIterable<AsyncIterable<ExcelJS.Row>>) {
      for await (const row of sheet) {
        const values = row.values as unknown[];
        const texts = Array.from(values.slice(1), (v) => legacyText(v)); // holes read as empty
        while (texts.length > 0 && texts[texts.length - 1] === '') texts.pop();
        if (texts.some((t) => t.trim() !== '')) rows.push(texts);
      }
    }
    return rows;
  }

  it('reads every value type exactly as the exceljs-based reader did', async () => {
    const bytes = await streamedWorkbook((ws) => {
      ws.addRow(['id', 'text', 'date', 'time', 'number', 'bool', 'formula', 'rich', 'zip']).commit();
      for (let i = 0; i < 500; i++) {
        const row = ws.addRow([
          i,
          ['plain', 'a & b', '<tag>', 'ünïcödé', '😀 emoji', ' padded ', '', 'line\nbreak'][i % 8],
          // From 1901: exceljs writes and reads dates before March 1900 a day off from Excel (the next test).
          new Date(Date.UTC(1901 + (i % 200), i % 12, 1 + (i % 28))),
          new Date(Date.UTC(2024, 0, 1, i % 24, i % 60, (i * 7) % 60)),
          // No fraction of more than 15 digits: exceljs printed all 17, this reader the 15 Excel shows (the next test).
          [0, -1, 1.5, 1e-7, 123456789012, 0.25, -0.5, 1 / 8, 2 ** 53, 1e21][i % 10] * (i % 3 === 0 ? -1 : 1),
          i % 3 === 0,
          { formula: `A${i + 2}+1`, result: i + 1 } as ExcelJS.CellFormulaValue,
          { richText: [{ text: 'ri', font: { italic: true } }, { text: `ch ${i}` }] },
          `00${i}`,
        ]);
        if (i % 4 === 0) row.getCell(12).value = `sparse L${i}`;
        row.commit();
        if (i % 50 === 0) ws.addRow([null, null, null]).commit();
      }
    });
    const ours = await rowsOf(bytes);
    expect(ours).toEqual(await legacyRows(bytes));
    expect(ours[1]).toEqual(['0', 'plain', '1901-01-01', '2024-01-01', '0', 'TRUE', '1', 'rich 0', '000', '', '', 'sparse L0']);
  });

  it('reads the serials of January and February 1900 as Excel shows them, its 1900-02-29 included', async () => {
    // Excel counts a 1900-02-29 (serial 60) that never was: serial 1 is 1900-01-01, not 1899-12-31 as a count from
    // 1899-12-30 gives (and exceljs read). In the 1904 system there is no such day.
    const serials = ['0', '1', '32', '59', '59.5', '59.99999999', '60', '60.25', '61', '61.5', '45000'];
    const sheet = sheetXml(
      `<row r="1">${serials.map((v, i) => `<c r="${String.fromCharCode(65 + i)}1" s="${v.includes('.') ? 2 : 1}"><v>${v}</v></c>`).join('')}</row>`,
    );
    const styles = xml(
      `<styleSheet xmlns="${MAIN_NS}"><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="22"/></cellXfs></styleSheet>`,
    );
    const bytes = await styledWorkbook(sheet, styles);
    expect(await rowsOf(bytes)).toEqual([
      [
        '1900-01-00',
        '1900-01-01',
        '1900-02-01',
        '1900-02-28',
        '1900-02-28T12:00:00',
        '1900-02-29',
        '1900-02-29',
        '1900-02-29T06:00:00',
        '1900-03-01',
        '1900-03-01T12:00:00',
        '2023-03-15',
      ],
    ]);
  });

  it('puts a cell with an absolute reference ($B$2, as some writers give) in its column', async () => {
    const sheet = sheetXml('<row r="1"><c r="$B$1"><v>1</v></c><c r="$D1"><v>2</v></c></row><row r="2"><c r="A2"><v>3</v></c></row>');
    const bytes = await repack(await baseWorkbook(), (p) => p.set(SHEET, sheet));
    expect(await rowsOf(bytes)).toEqual([['', '1', '', '2'], ['3']]);
  });

  it('reads a ZIP code (a whole number in a format of zeros) as the sheet shows it, leading zeros and all', async () => {
    const sheet = sheetXml(
      '<row r="1"><c r="A1" s="1"><v>1234</v></c><c r="B1" s="2"><v>2345678</v></c><c r="C1" s="1"><v>1234.5</v></c>' +
        '<c r="G1" s="1"><v>1234.0000000000002</v></c><c r="H1" s="1"><v>1233.9999999999998</v></c>' +
        '<c r="D1"><v>1234</v></c><c r="E1" s="1" t="s"><v>0</v></c><c r="F1" s="3"><v>1234</v></c></row>',
    );
    const styles = xml(
      `<styleSheet xmlns="${MAIN_NS}"><numFmts count="3"><numFmt numFmtId="164" formatCode="00000"/>` +
        '<numFmt numFmtId="165" formatCode="00000\\-0000"/><numFmt numFmtId="166" formatCode="#,##0"/></numFmts>' +
        '<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/></cellXfs></styleSheet>',
    );
    const bytes = await styledWorkbook(sheet, styles, xml(`<sst xmlns="${MAIN_NS}"><si><t>0042</t></si></sst>`));
    // A fraction keeps its digits (Excel would show 01235); text is text; other formats give the plain number.
    // A formula's noise around a whole number is still the ZIP code.
    expect(await rowsOf(bytes)).toEqual([['01234', '00234-5678', '1234.5', '1234', '0042', '1234', '01234', '01234']]);
  });

  it('keeps a value no spreadsheet shows as a date or writes as a number as its text, for the field check to meet', async () => {
    // A probe found 1E+20 in a date format empty (a required field's "required" problem), -1 read as 1899-12-29, `12abc`
    // as 12, a boolean `false` as TRUE, and an ISO date's 0.7 s cut off.
    const sheet = sheetXml(
      '<row r="1"><c r="A1" s="1"><v>1E+20</v></c><c r="B1" s="1"><v>-1</v></c><c r="C1" s="1"><v>2958466</v></c>' +
        '<c r="D1" s="1"><v>2958465.5</v></c><c r="E1" s="2"><v>1E+20</v></c><c r="F1"><v>12abc</v></c><c r="G1"><v>0x1A</v></c>' +
        '<c r="H1"><v>1E+309</v></c><c r="I1" t="b"><v>false</v></c><c r="J1" t="b"><v>0</v></c>' +
        '<c r="K1" t="d"><v>2024-03-04T10:00:00.700</v></c><c r="L1" t="d"><v>garbage</v></c>' +
        '<c r="M1" t="d"><v>1</v></c><c r="N1" t="d"><v>2024-03-04 10:00:00</v></c><c r="O1" t="d"><v>2024-03-04T10:00:00+02:00</v></c>' +
        '<c r="P1" t="d"><v>2024-03-04</v></c></row>',
    );
    const styles = xml(
      `<styleSheet xmlns="${MAIN_NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="[h]:mm:ss"/></numFmts>` +
        '<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs></styleSheet>',
    );
    const bytes = await styledWorkbook(sheet, styles);
    expect(await rowsOf(bytes)).toEqual([
      [
        '100000000000000000000',
        '-1',
        '2958466',
        '9999-12-31T12:00:00',
        '100000000000000000000',
        '12abc',
        '0x1A',
        '1E+309',
        'false',
        'FALSE',
        '2024-03-04T10:00:01',
        'garbage',
        // JavaScript's Date read `1` as 2001-01-01, and a date and time with a blank in the machine's time zone.
        '1',
        '2024-03-04 10:00:00',
        '2024-03-04T08:00:00',
        '2024-03-04',
      ],
    ]);
  });

  it('inline strings, booleans, errors, formulas, numbers, styles and sparse cells', async () => {
    const sheet = sheetXml(
      [
        // Inline strings: rich runs joined, phonetic guide left out; a str formula's cached text; shared strings.
        '<row r="1"><c r="A1" t="inlineStr"><is><t>plain</t></is></c>' +
          '<c r="B1" t="inlineStr"><is><r><t>bo</t></r><r><rPr><b/></rPr><t xml:space="preserve">ld </t></r><rPh sb="0" eb="1"><t>ignored</t></rPh></is></c>' +
          '<c r="C1" t="str"><f>A1</f><v>a &amp;amp; b</v></c><c r="D1" t="s"><v>0</v></c><c r="E1" t="s"><v>1</v></c></row>',
        // Booleans (a formula's too), errors, a formula never calculated, numbers as JavaScript prints them.
        '<row r="3"><c r="A3" t="b"><v>0</v></c><c r="B3" t="b"><f>1=1</f><v>1</v></c><c r="C3" t="e"><v>#N/A</v></c>' +
          '<c r="D3" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="E3"><f>Z1</f></c><c r="F3"><v>1.5E3</v></c>' +
          '<c r="G3"><v>-0.000000123</v></c><c r="H3"><v>007</v></c><c r="I3"><v>0.30000000000000004</v></c>' +
          '<c r="J3"><v>7.0000000000000009</v></c><c r="K3"><v>0.33333333333333331</v></c><c r="L3"><v>9007199254740993</v></c>' +
          '<c r="M3"><v>12345678901234567890</v></c><c r="N3"><v>-1.2345678901234567E-5</v></c>' +
          '<c r="O3"><v>12345678901234.56</v></c><c r="P3"><v>1234567890123456.5</v></c><c r="Q3"><v>0.1234567890123456</v></c></row>',
        // Styles: built-in 22 (date and time), custom dates (escaped, with a locale), a quoted "days" that is no date,
        // a number format, a date formula's cached value, an ISO t="d" cell, cells without references.
        '<row r="4"><c r="C4" s="1"><v>45000.5</v></c><c s="2"><v>45000</v></c><c s="3"><v>45000</v></c><c s="4"><v>45000</v></c>' +
          '<c s="5"><v>45000</v></c><c r="J4" s="2"><f>C4+1</f><v>45001</v></c><c r="K4" t="d"><v>2021-03-04T05:06:07</v></c>' +
          '<c r="L4" s="0"><v>45000</v></c><c r="M4" s="99"><v>45000</v></c></row>',
        // Whitespace only: skipped.
        '<row r="5"><c r="A5" t="inlineStr"><is><t>   </t></is></c><c r="B5" t="s"><v>2</v></c></row>',
        // A trailing empty cell is trimmed (an index the shared strings do not have is refused: xlsx-hostile.unit.spec.ts).
        '<row r="6"><c r="B6" t="s"><v>0</v></c><c r="D6"/></row>',
        // Two cells at one reference: the last wins.
        '<row r="7"><c r="A7"><v>1</v></c><c r="A7"><v>2</v></c></row>',
      ].join(''),
    );
    const styles = xml(
      `<styleSheet xmlns="${MAIN_NS}"><numFmts count="3"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/>` +
        '<numFmt numFmtId="165" formatCode="0.00&quot; days&quot;"/><numFmt numFmtId="166" formatCode="[$-409]d\\-mmm\\-yyyy;@"/></numFmts>' +
        '<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>' +
        '<cellXfs count="6"><xf numFmtId="0"/><xf numFmtId="22"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="4"/></cellXfs>' +
        '</styleSheet>',
    );
    const sharedStrings = xml(
      `<sst xmlns="${MAIN_NS}"><si><t>first</t><rPh sb="0" eb="1"><t>ふ</t></rPh></si>` +
        '<si><r><t>ri</t></r><r><rPr><i/></rPr><t>ch</t></r></si><si><t xml:space="preserve">  </t></si></sst>',
    );
    const bytes = await styledWorkbook(sheet, styles, sharedStrings);
    expect(await rowsOf(bytes)).toEqual([
      ['plain', 'bold ', 'a &amp; b', 'first', 'rich'],
      // Error values as the sheet shows them (they were blanks, which an optional field took without a word).
      // A formula's noise to the 15 significant digits Excel shows; other fractions, and whole numbers, exact.
      [
        'FALSE',
        'TRUE',
        '#N/A',
        '#DIV/0!',
        '',
        '1500',
        '-1.23e-7',
        '7',
        '0.3',
        '7',
        '0.3333333333333333',
        '9007199254740992',
        '12345678901234567000',
        '-0.000012345678901234568',
        '12345678901234.56',
        '1234567890123456.5',
        '0.1234567890123456',
      ],
      [
        '',
        '',
        '2023-03-15T12:00:00',
        '2023-03-15',
        '45000',
        '2023-03-15',
        '45000',
        '',
        '',
        '2023-03-16',
        '2021-03-04T05:06:07',
        '45000',
        '45000',
      ],
      ['', 'first'],
      ['2'],
    ]);
  });

  it('dates of a 1904 workbook count from 1904-01-01', async () => {
    const bytes = await repack(await baseWorkbook(), (p) => {
      const workbook = (p.get('xl/workbook.xml') as Buffer).toString().replace(/<workbookPr[^>]*\/>/, '<workbookPr date1904="1"/>');
      p.set('xl/workbook.xml', Buffer.from(workbook));
      p.set(SHEET, sheetXml('<row r="1"><c r="A1" s="1"><v>0</v></c><c r="B1" s="1"><v>45000.5</v></c></row>'));
      p.set(
        'xl/styles.xml',
        xml(`<styleSheet xmlns="${MAIN_NS}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`),
      );
    });
    expect(await rowsOf(bytes)).toEqual([['1904-01-01', '2027-03-16T12:00:00']]);
  });

  it("ends a 1904 workbook's elapsed time where its days end, 1,462 serials sooner", async () => {
    const bytes = await repack(await baseWorkbook(), (p) => {
      const workbook = (p.get('xl/workbook.xml') as Buffer).toString().replace(/<workbookPr[^>]*\/>/, '<workbookPr date1904="1"/>');
      p.set('xl/workbook.xml', Buffer.from(workbook));
      p.set(SHEET, sheetXml('<row r="1"><c r="A1" s="1"><v>2957003</v></c><c r="B1" s="1"><v>2957004</v></c></row>'));
      p.set(
        'xl/styles.xml',
        xml(`<styleSheet xmlns="${MAIN_NS}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="46"/></cellXfs></styleSheet>`),
      );
    });
    expect(await rowsOf(bytes)).toEqual([['70968072:00:00', '2957004']]);
  });

  it('elements with a namespace prefix read like unprefixed ones', async () => {
    const sheet = xml(
      `<x:worksheet xmlns:x="${MAIN_NS}"><x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>p</x:t></x:is></x:c>` +
        '<x:c r="C1"><x:v>2</x:v></x:c></x:row></x:sheetData></x:worksheet>',
    );
    expect(await rowsOf(await repack(await baseWorkbook(), (p) => p.set(SHEET, sheet)))).toEqual([['p', '', '2']]);
  });

  it('number texts that are returned as written are exactly what String(parseFloat()) gives', () => {
    for (const [value, printed] of [
      ['0', true],
      ['-0', false],
      ['1.50', false],
      ['007', false],
      ['0.000001', true],
      ['0.0000001', false],
      ['123456789012345', true],
      ['1234567890123456', false],
      ['1E3', false],
      ['.5', false],
      ['5.', false],
      ['-12.75', true],
    ] as const) {
      expect([value, isPrintedNumber(value)]).toEqual([value, printed]);
    }
    const decimal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,17}$/), fc.nat({ max: 17 }))
      .map(
        ([negative, digits, point]) =>
          `${negative ? '-' : ''}${point < digits.length ? `${digits.slice(0, point) || '0'}.${digits.slice(point)}` : digits}`,
      );
    const printedDouble = fc.double({ noNaN: true, noDefaultInfinity: true }).map(String);
    fc.assert(
      fc.property(fc.oneof(decimal, printedDouble), (value) => {
        if (isPrintedNumber(value)) expect(String(parseFloat(value))).toBe(value);
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['yyyy-mm-dd', true],
    ['d-mmm-yy', true],
    ['h:mm AM/PM', true],
    ['[$-409]mmmm d, yyyy;@', true],
    ['YYYY-MM-DD', true],
    ['[h]:mm:ss', true],
    ['General', false],
    ['0.00', false],
    ['#,##0.00 "days"', false],
    ['0.0\\h', false],
    ['[Red]#,##0;[Blue]-#,##0', false],
    ['_-* #,##0.00_-;\\-* #,##0.00_-', false],
    ['@', false],
  ])('format code %j shows a date: %s', (code, isDate) => expect(shownAs(code) !== SHOWN_AS_NUMBER).toBe(isDate));

  it.each([
    ['yyyy-mm-dd', SHOWN_AS_DATE],
    ['d-mmm-yy h:mm', SHOWN_AS_DATE],
    ['[$-409]mmmm d, yyyy;@', SHOWN_AS_DATE],
    ['h:mm', SHOWN_AS_TIME_OF_DAY],
    ['h:mm AM/PM', SHOWN_AS_TIME_OF_DAY],
    ['[$-409]hh:mm:ss A/P;@', SHOWN_AS_TIME_OF_DAY],
    ['mm:ss.0', SHOWN_AS_TIME_OF_DAY],
    ['[h]:mm:ss', SHOWN_AS_ELAPSED_TIME],
    ['[Red][hh]:mm', SHOWN_AS_ELAPSED_TIME],
    ['[mm]:ss', SHOWN_AS_ELAPSED_TIME],
    ['"[h]" 0.00', SHOWN_AS_NUMBER],
    ['0.00', SHOWN_AS_NUMBER],
  ])('format code %j shows a number as kind %d', (code, kind) => expect(shownAs(code)).toBe(kind));

  it('a time of day reads as HH:mm:ss, elapsed time in hours in full, and neither as a day in 1899', async () => {
    const bytes = await repack(await baseWorkbook(), (p) => {
      p.set(
        SHEET,
        sheetXml(
          // A time of day under built-in 20 and a custom code; one with a date part keeps it; built-in 46 and a
          // custom [h]:mm are elapsed time, up to days and below zero.
          '<row r="1"><c r="A1" s="1"><v>0.5208333</v></c><c r="B1" s="2"><v>0.99999</v></c><c r="C1" s="1"><v>45000.75</v></c>' +
            '<c r="D1" s="1"><v>0</v></c><c r="E1" s="3"><v>1.5625</v></c><c r="F1" s="4"><v>0.0104166666</v></c><c r="G1" s="4"><v>-1.5</v></c>' +
            '<c r="H1" s="4"><v>12.25</v></c>' +
            // Rounded to the second as Excel shows it: 23:59:59.6 on the clock is midnight, a date's 12:00:00.7 is 12:00:01.
            '<c r="I1" s="1"><v>0.9999954</v></c><c r="J1" s="1"><v>45000.5000081</v></c><c r="K1" s="1"><v>45000.9999954</v></c></row>',
        ),
      );
      p.set(
        'xl/styles.xml',
        xml(
          `<styleSheet xmlns="${MAIN_NS}"><numFmts count="2"><numFmt numFmtId="164" formatCode="h:mm:ss AM/PM"/>` +
            '<numFmt numFmtId="165" formatCode="[h]:mm"/></numFmts>' +
            '<cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="20"/><xf numFmtId="164"/><xf numFmtId="46"/><xf numFmtId="165"/></cellXfs></styleSheet>',
        ),
      );
    });
    expect(await rowsOf(bytes)).toEqual([
      [
        '12:30:00',
        '23:59:59',
        '2023-03-15T18:00:00',
        '00:00:00',
        '37:30:00',
        '00:15:00',
        '-36:00:00',
        '294:00:00',
        '00:00:00',
        '2023-03-15T12:00:01',
        '2023-03-16',
      ],
    ]);
  });
});

describe('parts of a second', () => {
  it.each([
    ['mm:ss.0', 1],
    ['hh:mm:ss.000', 3],
    ['[h]:mm:ss.00', 2],
    ['[ss].0', 1],
    ['[h]:mm:ss;[Red]-[h]:mm:ss.00', 0],
    ['[$-409]hh:mm:ss.00 AM/PM', 2],
    ['yyyy-mm-dd hh:mm:ss', 0],
    ['"ss.00" 0.00', 0],
    ['0.000', 0],
  ])('format code %j shows %i digits of a second', (code, digits) => expect(secondFractionDigits(code)).toBe(digits));

  it('reads a time, a date and elapsed time to the parts of a second their format shows, rounded there', async () => {
    // 12:30:15.25 (0.521009838...), a date at 12:00:00.7, and 1 h 0 min 0.449 s of elapsed time.
    const time = (12 * 3600 + 30 * 60 + 15.25) / 86400;
    const date = 45000 + (12 * 3600 + 0.7) / 86400;
    const elapsed = (3600 + 0.449) / 86400;
    const bytes = await styledWorkbook(
      sheetXml(
        `<row r="1"><c r="A1" s="1"><v>${time}</v></c><c r="B1" s="2"><v>${time}</v></c><c r="C1" s="3"><v>${date}</v></c>` +
          `<c r="D1" s="4"><v>${elapsed}</v></c><c r="E1" s="5"><v>${date}</v></c><c r="F1" s="2"><v>0.999999999</v></c>` +
          `<c r="G1" s="6"><v>${time}</v></c></row>`,
      ),
      xml(
        `<styleSheet xmlns="${MAIN_NS}"><numFmts count="4"><numFmt numFmtId="164" formatCode="hh:mm:ss.000"/>` +
          '<numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm:ss.0"/><numFmt numFmtId="166" formatCode="[h]:mm:ss.00"/>' +
          '<numFmt numFmtId="47" formatCode="hh:mm:ss"/></numFmts>' +
          '<cellXfs count="7"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/>' +
          '<xf numFmtId="22"/><xf numFmtId="47"/></cellXfs></styleSheet>',
      ),
    );
    expect(await rowsOf(bytes)).toEqual([
      [
        '12:30:15.250',
        '12:30:15.250',
        '2023-03-15T12:00:00.7',
        '01:00:00.45',
        // Built-in 22 shows whole seconds: 12:00:00.7 is 12:00:01.
        '2023-03-15T12:00:01',
        // 23:59:59.99991 to the millisecond is midnight, as the clock shows it.
        '00:00:00.000',
        // A custom format on built-in 47's id shows what it says: whole seconds.
        '12:30:15',
      ],
    ]);
  });

  it('writes the parts of a second exactly on every path: far dates, the 1900 leap day, day 0, carries and negatives', () => {
    const ms = 0.757 / 86400;
    // Year 4253 and 9999: whole-millisecond arithmetic past 2^53 (12% of such serials read a millisecond early).
    expect(serialDateText(859569 + 0.5 + ms, false, 3)).toBe('4253-06-01T12:00:00.757');
    expect(serialDateText(2958465 + ms, false, 3)).toBe('9999-12-31T00:00:00.757');
    expect(serialDateText(60 + 0.25 + ms, false, 3)).toBe('1900-02-29T06:00:00.757');
    expect(serialDateText(ms, false, 2)).toBe('1900-01-00T00:00:00.76');
    expect(serialDateText(1 + ms, false, 1)).toBe('1900-01-01T00:00:00.8');
    // 59.9995 s at three digits carries into the minute, and a day's last half millisecond into the next day.
    expect(serialTimeText(59.9995 / 86400, false, 3)).toBe('00:01:00.000');
    expect(serialDateText(45000 + (86400 - 0.0004) / 86400, false, 3)).toBe('2023-03-16');
    expect(serialElapsedText(-(3600 + 0.25) / 86400, false, 2)).toBe('-01:00:00.25');
  });

  it('rounds a cell of type d (an ISO date) to the parts of a second its format shows', async () => {
    const bytes = await styledWorkbook(
      sheetXml(
        '<row r="1"><c r="A1" t="d" s="1"><v>2024-03-04T10:00:00.4567</v></c><c r="B1" t="d"><v>2024-03-04T10:00:00.4567</v></c></row>',
      ),
      xml(
        `<styleSheet xmlns="${MAIN_NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss.00"/></numFmts>` +
          '<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>',
      ),
    );
    expect(await rowsOf(bytes)).toEqual([['2024-03-04T10:00:00.46', '2024-03-04T10:00:00']]);
  });

  it('reads built-in 47 (mm:ss.0) to tenths', async () => {
    const bytes = await styledWorkbook(
      sheetXml(`<row r="1"><c r="A1" s="1"><v>${75.36 / 86400}</v></c></row>`),
      xml(`<styleSheet xmlns="${MAIN_NS}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="47"/></cellXfs></styleSheet>`),
    );
    expect(await rowsOf(bytes)).toEqual([['00:01:15.4']]);
  });
});

describe('which sheet, which parts', () => {
  const threeSheets = () =>
    baseWorkbook((wb) => {
      const blank = wb.addWorksheet('Blank');
      blank.getCell('B2').value = '   ';
      wb.addWorksheet('Second').addRow(['second']);
      wb.addWorksheet('Third').addRow(['third']);
    });

  it('reads the first non-empty worksheet in tab order (the workbook, not the part names, decides)', async () => {
    expect(await rowsOf(await threeSheets())).toEqual([['second']]);
    const thirdFirst = await repack(await threeSheets(), (p) => {
      const workbook = (p.get('xl/workbook.xml') as Buffer).toString();
      const sheets = workbook.match(/<sheet [^>]*\/>/g)!;
      p.set('xl/workbook.xml', Buffer.from(workbook.replace(sheets.join(''), [sheets[0], sheets[2], sheets[1]].join(''))));
    });
    expect(await rowsOf(thirdFirst)).toEqual([['third']]);
  });

  it('follows the relationships to a sheet part with any name', async () => {
    const bytes = await repack(await baseWorkbook(), (p) => {
      p.set('xl/worksheets/data.xml', p.get(SHEET)!);
      p.delete(SHEET);
      const rels = (p.get('xl/_rels/workbook.xml.rels') as Buffer).toString().replace('worksheets/sheet1.xml', '/xl/worksheets/data.xml');
      p.set('xl/_rels/workbook.xml.rels', Buffer.from(rels));
    });
    expect(await rowsOf(bytes)).toEqual([['text', '1']]);
  });

  it('without a workbook part, falls back to the numbered sheet parts', async () => {
    const bytes = await repack(await baseWorkbook(), (p) => p.delete('xl/workbook.xml'));
    expect(await rowsOf(bytes)).toEqual([['text', '1']]);
  });
});

describe('limits while reading', () => {
  it('a shared strings table over its budget (1/16 of the unpacked limit) fails as too large', async () => {
    const bytes = await streamedWorkbook((ws) => {
      for (let i = 0; i < 4000; i++) ws.addRow([`${i} ${'s'.repeat(100)}`]).commit();
    });
    expect((await rowsOf(bytes)).length).toBe(4000);
    expect(await problemOf(bytes, { maxUnpackedBytes: 4 * 1024 * 1024 })).toEqual({
      kind: 'archiveTooLarge',
      message: 'The workbook unpacks to too much data: its shared strings take more than 262144 bytes.',
    });
  });

  it('a cell past the column limit fails as too many columns without allocating up to its column', async () => {
    const far = async (ref: string) =>
      repack(await baseWorkbook(), (p) =>
        p.set(SHEET, sheetXml(`<row r="1"><c r="A1"><v>1</v></c><c r="B1"/><c r="${ref}" t="inlineStr"><is><t>far</t></is></c></row>`)),
      );
    expect(await problemOf(await far('XFD1'), { maxColumns: 100 })).toEqual({
      kind: 'tooManyColumns',
      message: 'Row 1 has 16384 columns; at most 100 are allowed.',
    });
    expect((await problemOf(await far('ZZZZZZZZZZZZ1'))).kind).toBe('tooManyColumns');
    // An empty cell far out is no column at all.
    const emptyFar = await repack(await baseWorkbook(), (p) =>
      p.set(SHEET, sheetXml('<row r="1"><c r="A1"><v>1</v></c><c r="XFD1"/></row>')),
    );
    expect(await rowsOf(emptyFar, { maxColumns: 100 })).toEqual([['1']]);
    // Nor is a cell of blanks alone, as a delimited row's limit counts (it failed the row, 2026-12-03).
    const blankFar = await repack(await baseWorkbook(), (p) =>
      p.set(
        SHEET,
        sheetXml('<row r="1"><c r="A1"><v>1</v></c><c r="XFD1" t="inlineStr"><is><t xml:space="preserve">  </t></is></c></row>'),
      ),
    );
    expect(await rowsOf(blankFar, { maxColumns: 100 })).toEqual([['1']]);
  });

  it('an error value is kept in a row with data, but a row of errors alone is skipped and one past the column limit dropped', async () => {
    const bytes = await repack(await baseWorkbook(), (p) =>
      p.set(
        SHEET,
        sheetXml(
          '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>price</t></is></c></row>' +
            '<row r="2"><c r="A2" t="inlineStr"><is><t>A-1</t></is></c><c r="B2" t="e"><f>1/0</f><v>#DIV/0!</v></c></row>' +
            // A template's lookups past the data: errors and blanks only.
            '<row r="3"><c r="A3" t="e"><f>VLOOKUP(Z3,X:Y,2)</f><v>#N/A</v></c><c r="B3" t="e"><v>#N/A</v></c><c r="C3"><v></v></c></row>' +
            // An error far past the limit, in a row with data.
            '<row r="4"><c r="A4" t="inlineStr"><is><t>A-2</t></is></c><c r="B4"><v>3</v></c><c r="XFD4" t="e"><v>#REF!</v></c></row>' +
            // An error overwritten by a value at the same reference is a value.
            '<row r="5"><c r="A5" t="e"><v>#N/A</v></c><c r="A5" t="inlineStr"><is><t>A-3</t></is></c></row>',
        ),
      ),
    );
    expect(await rowsOf(bytes, { maxColumns: 100 })).toEqual([['sku', 'price'], ['A-1', '#DIV/0!'], ['A-2', '3'], ['A-3']]);
  });

  it('a cell longer than the field limit fails while it is read', async () => {
    const bytes = await repack(await baseWorkbook(), (p) =>
      p.set(SHEET, sheetXml(`<row r="1"><c r="A1" t="inlineStr"><is><t>${'x'.repeat(300_000)}</t></is></c></row>`)),
    );
    expect(await problemOf(bytes)).toEqual({
      kind: 'fieldTooLarge',
      message: 'Row 1, column 1 has more than 262144 characters; at most 262144 are allowed.',
    });
  });

  it('a stored source (package check skipped) still refuses a DTD, a vast text node and broken XML', async () => {
    const withSheet = async (sheet: Buffer) => repack(await baseWorkbook(), (p) => p.set(SHEET, sheet));
    const stored = { packageChecked: true };
    const dtd = await withSheet(xml(`<!DOCTYPE x [<!ENTITY a "b">]><worksheet xmlns="${MAIN_NS}"><sheetData/></worksheet>`));
    expect((await problemOf(dtd, {}, stored)).kind).toBe('xmlDoctype');
    const vast = await withSheet(xml(`<worksheet xmlns="${MAIN_NS}"><!--${'c'.repeat(3_000_000)}--><sheetData/></worksheet>`));
    expect(await problemOf(vast, {}, stored)).toMatchObject({ kind: 'fieldTooLarge', message: expect.stringContaining('sheet1.xml') });
    const broken = await withSheet(xml(`<worksheet xmlns="${MAIN_NS}"><sheetData><row><c><v>1</c></row></sheetData></worksheet>`));
    expect(await problemOf(broken, {}, stored)).toEqual({
      kind: 'unreadableFile',
      message: 'The workbook is damaged: its contents could not be read.',
    });
  });
});

describe('the no-progress watchdog judges bytes read', () => {
  let bytes: Buffer;
  beforeAll(async () => {
    bytes = await streamedWorkbook((ws) => {
      for (let i = 0; i < 2000; i++) ws.addRow([i, `row ${i}`, new Date(Date.UTC(2020, 0, 1 + (i % 365)))]).commit();
    });
  });

  /** The bytes in `pieces` chunks, one every `gapMs` (passed on `wait`: a real sleep by default). */
  const throttled = (pieces: number, gapMs: number, wait: (ms: number) => Promise<unknown> = sleep) =>
    Readable.from(
      (async function* () {
        const size = Math.ceil(bytes.length / pieces);
        for (let i = 0; i < bytes.length; i += size) {
          await wait(gapMs);
          yield bytes.subarray(i, i + size);
        }
      })(),
      { objectMode: false },
    );

  /** Delivers the first `fraction` of the bytes, then nothing, never ending. */
  const stalling = (fraction: number) => {
    const stream = new Readable({ read() {} });
    if (fraction > 0) stream.push(bytes.subarray(0, Math.floor(bytes.length * fraction)));
    return stream;
  };

  it('a slow but advancing source is not damaged, though it takes many times stallMs', async () => {
    // Held clock: the source's gaps are the only time that passes, so a stalled machine cannot
    // turn a 60 ms gap (or a step of reading the package) into a 150 ms stall.
    const clock = heldClock();
    try {
      const started = Date.now();
      const rows = await rowsOf(throttled(20, 60, clock.pass), {}, { stallMs: 150 });
      expect(rows).toHaveLength(2000);
      expect(Date.now() - started).toBeGreaterThan(1000);
    } finally {
      clock.restore();
    }
  });

  it.each([
    ['after part of the file', 0.5],
    ['before its first byte', 0],
  ])('a source that stalls %s fails as damaged, in bounded time, leaving no temporary file', async (_when, fraction) => {
    const before = spoolFiles().length;
    const started = Date.now();
    expect(await problemOf(stalling(fraction), {}, { stallMs: 200 })).toEqual({
      kind: 'unreadableFile',
      message: 'The workbook is damaged: its contents could not be read.',
    });
    // About 2 x stallMs; the bound is for a source that is never given up on, with room for a stalled CI machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(spoolFiles().length).toBe(before);
  });

  it('a step is alive while bytes arrive, and stalled when none do', async () => {
    // Fake timers and clock: the watchdog sees exactly the time passed here, whatever the machine's load.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    try {
      const watch = new StallWatch(100);
      const ticking = setInterval(() => watch.progress(), 20);
      try {
        const alive = watch.step(sleep(400).then(() => 'done'));
        await jest.advanceTimersByTimeAsync(400);
        await expect(alive).resolves.toBe('done');
      } finally {
        clearInterval(ticking);
      }
      let outcome: unknown;
      watch.step(new Promise(() => undefined)).catch((err) => (outcome = err));
      await jest.advanceTimersByTimeAsync(99);
      expect(outcome).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      expect(outcome).toMatchObject({ kind: 'unreadableFile' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('every part is read through the package: unpacking the parts counts as progress', async () => {
    const file = join(tmpdir(), `xlsx-reader-spec-${process.pid}.xlsx`);
    await fs.writeFile(file, bytes);
    try {
      const watch = new StallWatch(1000);
      const progress = jest.spyOn(watch, 'progress');
      const pkg = await openPackageFile(createReadStream(file), watch);
      const sheet = await pkg.openPart((await pkg.part(SHEET))!);
      const calls = progress.mock.calls.length;
      let unpacked = 0;
      for await (const chunk of sheet) unpacked += (chunk as Buffer).length;
      expect(unpacked).toBe((await partsOf(bytes)).get(SHEET)!.length);
      expect(progress.mock.calls.length).toBeGreaterThan(calls);
      await pkg.close();
    } finally {
      await fs.rm(file, { force: true });
    }
  });
});
