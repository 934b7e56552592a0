import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { BATCH_CHARS } from './row-batcher';
import { SharedStrings } from './xlsx-shared-strings';
import { openXlsx } from './xlsx-reader';
import { xmlSliceChars } from './xlsx-xml';

/**
 * A shared-string cell is some 30 characters of sheet XML that stand for up to 32,767 characters of text (Excel's
 * longest cell). The reader parsed a whole 128 KiB chunk of the sheet before handing on its rows, so a chunk made
 * thousands of long values at once: 70 rows of 30 cells of 30,000 characters (a 15 MB workbook, within every limit)
 * filled a 64 MB file-work thread and failed with transformation_out_of_memory. It now parses the XML in slices
 * and hands on each slice's rows before the next (xlsx-xml.ts, xmlSliceChars).
 */
describe('XLSX shared strings that fan out into long values', () => {
  afterEach(() => jest.restoreAllMocks());

  it('makes the values of a batch, not of a whole chunk of the sheet, before handing the batch on', async () => {
    const long = 'lorem ipsum '.repeat(2_500); // 30,000 characters, stored once as a shared string
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Data');
    ws.addRow(['id', 'notes']);
    for (let i = 1; i <= 3_000; i++) ws.addRow([i, long]);
    const bytes = Buffer.from(await wb.xlsx.writeBuffer());

    const made = jest.spyOn(SharedStrings.prototype, 'get');
    const table = await openXlsx(Readable.from([bytes], { objectMode: false }));
    // Values made as each batch is handed on, less the rows handed on before it: that batch's and those made past it.
    let rows = 0;
    let mostAhead = 0;
    for await (const batch of table.batches) {
      mostAhead = Math.max(mostAhead, made.mock.calls.length - rows);
      rows += batch.length;
    }

    expect(rows).toBe(3_001);
    // A batch ends at BATCH_CHARS (35 such rows); the slice of XML that ended it may have made some more: 45 values
    // with the batch's at most here, 74 with slices four times as long. The whole first chunk of the sheet's XML made
    // about 2,500.
    expect(mostAhead).toBeLessThan(Math.ceil(BATCH_CHARS / long.length) + 25);
  });
});

describe('xmlSliceChars', () => {
  it('parses a sheet in whole chunks when its shared strings are short, in slices as they get longer', () => {
    expect(xmlSliceChars(0)).toBe(Infinity); // no shared strings: the XML holds its own text
    expect(xmlSliceChars(40)).toBeGreaterThan(128 * 1024); // a whole chunk of the sheet at a time
    expect(xmlSliceChars(32_767)).toBe(1024); // Excel's longest cell: some 50 cells a slice
    expect(xmlSliceChars(30_000) * 32_767).toBeLessThanOrEqual(1024 * 32_767 * 1.1);
    // Past what Excel writes (another writer, up to MAX_FIELD_CHARS): fewer cells still, never under 256 characters.
    expect(xmlSliceChars(262_144)).toBe(256);
    expect(xmlSliceChars(100_000_000)).toBe(256);
  });
});
