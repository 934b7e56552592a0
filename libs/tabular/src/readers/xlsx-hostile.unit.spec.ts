import { Readable } from 'node:stream';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import ExcelJS from 'exceljs';
import { DEFAULT_TABLE_LIMITS, SourceProblem, type TableLimits } from './source-problem';
import { pack, repack } from './testing/xlsx-parts';
import { checkDeclaredSizes } from './xlsx-package-check';
import { openXlsx } from './xlsx-reader';

/**
 * Hostile and quirky workbooks, made here from a real exceljs workbook whose parts are
 * re-packed, inflated, hidden or changed (no binaries are checked in).
 */

const stream = (bytes: Buffer): Readable => Readable.from([bytes], { objectMode: false });

async function workbook(build: (ws: ExcelJS.Worksheet) => void): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  build(wb.addWorksheet('Data'));
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const people = () =>
  workbook((ws) => {
    ws.addRow(['name', 'city']);
    ws.addRow(['Ann', 'Oslo']);
  });

/** Sheet XML with `rows` rows of the same long cell: highly compressible, streamed out. */
const inflatingSheet = (rows: number) => () =>
  Readable.from(
    (function* () {
      yield '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
      const cell = 'x'.repeat(1000);
      for (let r = 1; r <= rows; r++) yield `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>${cell}</t></is></c></row>`;
      yield '</sheetData></worksheet>';
    })(),
  );

/** Finds the central directory record of `name` (signature PK\x01\x02, name at +46). */
function centralRecordOf(zip: Buffer, name: string): number {
  const signature = Buffer.from('PK\x01\x02', 'latin1');
  for (let at = zip.indexOf(signature); at >= 0; at = zip.indexOf(signature, at + 4)) {
    const nameLength = zip.readUInt16LE(at + 28);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) return at;
  }
  throw new Error(`no central record for ${name}`);
}

const problemOf = async (promise: Promise<unknown>) => {
  try {
    const table = (await promise) as { batches: AsyncIterable<string[][]> };
    for await (const _ of table.batches) {
      /* read to the end */
    }
  } catch (err) {
    if (err instanceof SourceProblem) return { kind: err.kind, message: err.message };
    throw err;
  }
  throw new Error('expected a SourceProblem');
};

const rowsOf = async (bytes: Buffer, limits?: Partial<TableLimits>) => {
  const table = await openXlsx(stream(bytes), { ...DEFAULT_TABLE_LIMITS, ...limits });
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
};

const spoolFiles = () => readdirSync(tmpdir()).filter((f) => f.startsWith('transform-spool-'));

describe('XLSX packages: zip bombs, hidden parts, DTDs', () => {
  it('reads a normal workbook and leaves no temporary file behind', async () => {
    const before = spoolFiles().length;
    expect(await rowsOf(await people())).toEqual([
      ['name', 'city'],
      ['Ann', 'Oslo'],
    ]);
    expect(spoolFiles().length).toBe(before);
  });

  it('refuses a sheet that unpacks past the byte limit, on what the package declares', async () => {
    // 3000 rows of 1000 characters: about 3 MB unpacked from a few KB.
    const bytes = await repack(await people(), (p) => p.set('xl/worksheets/sheet1.xml', inflatingSheet(3000)));
    const problem = await problemOf(
      openXlsx(stream(bytes), { ...DEFAULT_TABLE_LIMITS, maxUnpackedBytes: 1024 * 1024, maxCompressionRatio: 1_000_000 }),
    );
    expect(problem).toMatchObject({ kind: 'archiveTooLarge', message: expect.stringContaining('1048576 bytes') });
  });

  it('refuses a part compressed beyond the ratio limit', async () => {
    const bytes = await repack(await people(), (p) => p.set('xl/worksheets/sheet1.xml', inflatingSheet(3000)));
    const problem = await problemOf(openXlsx(stream(bytes), { ...DEFAULT_TABLE_LIMITS, maxCompressionRatio: 50 }));
    expect(problem).toMatchObject({
      kind: 'archiveTooLarge',
      message: expect.stringMatching(/sheet1\.xml is compressed \d+:1, at most 50:1/),
    });
  });

  it('refuses a part that inflates past the size its central directory declares (a lying bomb)', async () => {
    const bytes = await repack(await people(), (p) => p.set('xl/worksheets/sheet1.xml', inflatingSheet(3000)));
    const record = centralRecordOf(bytes, 'xl/worksheets/sheet1.xml');
    bytes.writeUInt32LE(1000, record + 24); // declared unpacked size: 1000 bytes
    const problem = await problemOf(openXlsx(stream(bytes)));
    expect(problem).toMatchObject({ kind: 'unreadableFile', message: expect.stringContaining('damaged') });
  });

  it('refuses a cell that refers to shared text the workbook does not have (its rows were once dropped as blank)', async () => {
    for (const index of ['99', '-1']) {
      const bytes = await repack(await people(), (p) =>
        p.set(
          'xl/worksheets/sheet1.xml',
          Buffer.from(
            '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
              '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c></row>' +
              `<row r="2"><c r="A2" t="s"><v>${index}</v></c></row>` +
              '</sheetData></worksheet>',
          ),
        ),
      );
      const problem = await problemOf(openXlsx(stream(bytes)));
      expect(problem).toMatchObject({ kind: 'unreadableFile', message: expect.stringContaining(`shared text number ${index}`) });
    }
    // A shared-text cell with no index at all is an empty cell, as before.
    const empty = await repack(await people(), (p) =>
      p.set(
        'xl/worksheets/sheet1.xml',
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
            '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>city</t></is></c></row>' +
            '<row r="2"><c r="A2" t="s"><v></v></c><c r="B2" t="inlineStr"><is><t>Oslo</t></is></c></row>' +
            '</sheetData></worksheet>',
        ),
      ),
    );
    expect(await rowsOf(empty)).toEqual([
      ['name', 'city'],
      ['', 'Oslo'],
    ]);
  });

  it('refuses a ZIP archive that holds no workbook (it was reported as an empty workbook)', async () => {
    const bytes = await pack(new Map([['notes/readme.txt', Buffer.from('not a workbook at all')]]));
    expect(await problemOf(openXlsx(stream(bytes)))).toEqual({
      kind: 'unreadableFile',
      message: 'The file is a ZIP archive but not an Excel workbook: it holds no workbook and no worksheet.',
    });
  });

  it('refuses bytes hidden between the listed parts and the central directory', async () => {
    const bytes = await people();
    const hidden = await pack(new Map([['xl/sharedStrings.xml', Buffer.from('<sst/>')]]));
    const hiddenEntry = hidden.subarray(0, hidden.indexOf(Buffer.from('PK\x01\x02', 'latin1')));
    const eocd = bytes.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'));
    const cd = bytes.readUInt32LE(eocd + 16);
    const spliced = Buffer.concat([bytes.subarray(0, cd), hiddenEntry, bytes.subarray(cd)]);
    spliced.writeUInt32LE(cd + hiddenEntry.length, eocd + hiddenEntry.length + 16);
    expect((await problemOf(openXlsx(stream(spliced)))).kind).toBe('unreadableFile');
  });

  it.each([
    ['a DOCTYPE', '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'],
    ['an external entity', '<!DOCTYPE x SYSTEM "file:///etc/passwd">'],
  ])('refuses XML that declares %s, in any part', async (_n, declaration) => {
    const bytes = await repack(await people(), (p) => {
      const sheet = (p.get('xl/worksheets/sheet1.xml') as Buffer).toString('utf8');
      p.set('xl/worksheets/sheet1.xml', Buffer.from(sheet.replace('?>', `?>${declaration}`)));
    });
    expect(await problemOf(openXlsx(stream(bytes)))).toMatchObject({ kind: 'xmlDoctype', message: expect.stringContaining('sheet1.xml') });
  });

  it('refuses a package with an encrypted part', async () => {
    const bytes = await people();
    const record = centralRecordOf(bytes, 'xl/worksheets/sheet1.xml');
    bytes.writeUInt16LE(bytes.readUInt16LE(record + 8) | 0x1, record + 8);
    expect((await problemOf(openXlsx(stream(bytes)))).kind).toBe('unsupportedFormat');
  });

  it('judges declared sizes: total and ratio, ratio only above 1 MiB', () => {
    const limits = { maxUnpackedBytes: 10_000_000, maxCompressionRatio: 100 };
    expect(() => checkDeclaredSizes([{ fileName: 'a', compressedSize: 1, uncompressedSize: 900_000 }], limits)).not.toThrow();
    expect(() => checkDeclaredSizes([{ fileName: 'a', compressedSize: 10_000, uncompressedSize: 2_000_000 }], limits)).toThrow(
      /a is compressed 200:1/,
    );
    expect(() =>
      checkDeclaredSizes(
        [
          { fileName: 'a', compressedSize: 100_000, uncompressedSize: 6_000_000 },
          { fileName: 'b', compressedSize: 100_000, uncompressedSize: 6_000_000 },
        ],
        limits,
      ),
    ).toThrow(/more than 10000000 bytes/);
  });
});

describe('Excel quirks', () => {
  it('merged cells: the value stays in the top-left cell, the others read as empty', async () => {
    const bytes = await workbook((ws) => {
      ws.addRow(['region', 'q1', 'q2']);
      ws.addRow(['North', 10, 20]);
      ws.addRow([null, 30, 40]);
      ws.mergeCells('A2:A3');
      ws.addRow(['South', 'both quarters', null]);
      ws.mergeCells('B4:C4');
    });
    expect(await rowsOf(bytes)).toEqual([
      ['region', 'q1', 'q2'],
      ['North', '10', '20'],
      ['', '30', '40'],
      ['South', 'both quarters'],
    ]);
  });

  it('empty trailing rows and columns are dropped; inner empty cells kept', async () => {
    const bytes = await workbook((ws) => {
      ws.addRow(['a', 'b', null, null]);
      ws.addRow(['1', null, '3', null]);
      ws.getCell('F2').value = '';
      ws.addRow([]);
      ws.addRow([null, null]);
      ws.getCell('A9').value = null;
    });
    expect(await rowsOf(bytes)).toEqual([
      ['a', 'b'],
      ['1', '', '3'],
    ]);
  });
});
