import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { SourceParsed } from '@app/contracts';
import type { RunState } from '@app/domain';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { inspectStructuredFile } from './inspect-structured-file';
import { readSampleRows } from './mapped-rows';

/**
 * A workbook with its data on the second sheet: ingestion lists the sheets and reads the
 * first visible one with data; a sheet chosen later is read again by name, and every
 * reader of the rows (preview, counts, output: readPlannedRows) reads the run's sheet.
 */
async function threeSheetWorkbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const notes = wb.addWorksheet('Notes', { state: 'hidden' });
  notes.addRow(['Internal notes']);
  notes.addRow(['not for import']);
  const people = wb.addWorksheet('People');
  people.addRow(['Email', 'Name']);
  people.addRow(['ada@example.com', 'Ada']);
  people.addRow(['alan@example.com', 'Alan']);
  const orders = wb.addWorksheet('Orders');
  orders.addRow(['Order', 'Email', 'Total']);
  orders.addRow(['A-1', 'grace@example.com', 12.5]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('the sheet a workbook is read from', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  const key = 'runs/r1/source';
  const run = (over: Partial<RunState> = {}) =>
    ({
      id: 'r1',
      filename: 'people.xlsx',
      source_key: key,
      rows_key: key,
      input_has_header_override: null,
      schema: { fields: {} },
      ...over,
    }) as unknown as RunState;
  /** The run as the parse leaves it, for the readers. */
  const parsedRun = (parsed: SourceParsed) =>
    run({
      source_format: parsed.source_format,
      delimiter: parsed.delimiter,
      encoding: parsed.encoding,
      input_has_header: parsed.input_has_header,
      source_headers: parsed.source_headers,
      sheets: parsed.sheets,
      sheet: parsed.sheet ?? null,
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'workbook-sheets-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    await blobs.put(key, Readable.from([await threeSheetWorkbook()]));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ingestion lists the sheets and reads the first visible one with data', async () => {
    const outcome = await inspectStructuredFile(blobs, run(), DEFAULT_TABLE_LIMITS, () => undefined);
    expect(outcome).toEqual({
      parsed: {
        source_headers: ['Email', 'Name'],
        input_has_header: true,
        total_rows: 2,
        source_format: 'xlsx',
        delimiter: null,
        encoding: 'xlsx',
        rows_origin: 'file',
        sheets: [
          { name: 'Notes', state: 'hidden', has_data: true },
          { name: 'People', state: 'visible', has_data: true },
          { name: 'Orders', state: 'visible', has_data: true },
        ],
        sheet: 'People',
      },
    });
    const parsed = (outcome as { parsed: SourceParsed }).parsed;
    expect(await readSampleRows(blobs, parsedRun(parsed), 10)).toEqual([
      ['ada@example.com', 'Ada'],
      ['alan@example.com', 'Alan'],
    ]);
  });

  it("a reviewer's sheet is read again by name, and the rows come from it", async () => {
    const outcome = await inspectStructuredFile(blobs, run(), DEFAULT_TABLE_LIMITS, () => undefined, { sheet: 'Orders' });
    expect(outcome).toEqual({
      parsed: {
        source_headers: ['Order', 'Email', 'Total'],
        input_has_header: true,
        total_rows: 1,
        source_format: 'xlsx',
        delimiter: null,
        encoding: 'xlsx',
        rows_origin: 'file',
        sheet: 'Orders',
      },
    });
    const parsed = (outcome as { parsed: SourceParsed }).parsed;
    expect(await readSampleRows(blobs, parsedRun(parsed), 10)).toEqual([['A-1', 'grace@example.com', '12.5']]);
  });

  it('a run parsed before sheets were listed (no sheet) still reads the first sheet with rows', async () => {
    expect(
      await readSampleRows(
        blobs,
        run({ source_format: 'xlsx', input_has_header: true, source_headers: ['Internal notes'], sheet: undefined }),
        10,
      ),
    ).toEqual([['not for import']]);
  });
});
