import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { RunEvent, SourceParsed } from '@app/contracts';
import { type RunState } from '@app/domain';
import { created, fold, uploaded } from '@app/domain/testing/run-history.fixtures';
import { DEFAULT_TABLE_LIMITS, SourceProblem, type TableLimits } from '@app/tabular';
import { inspectStructuredFile } from './inspect-structured-file';
import { readSampleRows } from './mapped-rows';
import { readLimitsOf, recordedReadLimits } from './read-limits';

/**
 * A workbook read under limits other than the defaults (an operator raised MAX_COLUMNS) is read again under the same
 * limits by every later read of its rows: before they were recorded, the output of a sheet wider than 1,000 columns
 * failed after the reviewer approved it, its workbook reader checking the default column limit again.
 */
const COLUMNS = 1200;
const RAISED: TableLimits = { ...DEFAULT_TABLE_LIMITS, maxColumns: 2000 };

async function wideWorkbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('Wide');
  sheet.addRow(Array.from({ length: COLUMNS }, (_, i) => `Column ${i + 1}`));
  sheet.addRow(Array.from({ length: COLUMNS }, (_, i) => `a${i + 1}`));
  sheet.addRow(Array.from({ length: COLUMNS }, (_, i) => `b${i + 1}`));
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('the limits a workbook was read under', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  const key = 'runs/r1/source';

  /** The run as its events leave it (the fold the service keeps), read under `limits`. */
  async function ingested(limits: TableLimits): Promise<{ parsed: SourceParsed; run: RunState }> {
    const base = fold([created({ filename: 'wide.xlsx', source_key: key }), uploaded]) as RunState;
    const outcome = await inspectStructuredFile(blobs, base, limits, () => undefined);
    if (!('parsed' in outcome)) throw new Error(`the workbook failed: ${JSON.stringify(outcome.failed)}`);
    const events: RunEvent[] = [
      created({ filename: 'wide.xlsx', source_key: key }),
      uploaded,
      { type: 'SourceParsed', data: outcome.parsed },
    ];
    return { parsed: outcome.parsed, run: fold(events) as RunState };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'read-limits-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    await blobs.put(key, Readable.from([await wideWorkbook()]));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records raised limits with the parse, and reads every row again whole under them', async () => {
    const { parsed, run } = await ingested(RAISED);
    expect(parsed.source_headers).toHaveLength(COLUMNS);
    expect(parsed.read_limits).toMatchObject({ max_columns: 2000, max_field_chars: DEFAULT_TABLE_LIMITS.maxFieldChars });
    expect(readLimitsOf(run)).toEqual(RAISED);

    const rows = await readSampleRows(blobs, run, 10);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toHaveLength(COLUMNS);
    expect(rows[1][COLUMNS - 1]).toBe(`b${COLUMNS}`);
  });

  it('the same run with nothing recorded (as before) fails its later reads on the default column limit', async () => {
    const { run } = await ingested(RAISED);
    await expect(readSampleRows(blobs, { ...run, read_limits: null }, 10)).rejects.toBeInstanceOf(SourceProblem);
  });

  it('a file read under the defaults records nothing; a text file read under others records them', async () => {
    const narrow = new ExcelJS.Workbook();
    narrow.addWorksheet('People').addRows([['Email'], ['ada@example.com']]);
    const narrowKey = 'runs/r2/source';
    await blobs.put(narrowKey, Readable.from([Buffer.from(await narrow.xlsx.writeBuffer())]));
    const workbookRun = fold([created({ filename: 'people.xlsx', source_key: narrowKey }), uploaded]) as RunState;
    const workbook = await inspectStructuredFile(blobs, workbookRun, DEFAULT_TABLE_LIMITS, () => undefined);
    expect('parsed' in workbook && workbook.parsed.read_limits).toBeUndefined();

    const csvKey = 'runs/r3/source';
    await blobs.put(csvKey, Readable.from([Buffer.from('Email\nada@example.com\n')]));
    const csvRun = fold([created({ filename: 'people.csv', source_key: csvKey }), uploaded]) as RunState;
    const csv = await inspectStructuredFile(blobs, csvRun, RAISED, () => undefined);
    expect('parsed' in csv && csv.parsed.read_limits).toMatchObject({ max_columns: 2000 });
    const csvUnderDefaults = await inspectStructuredFile(blobs, csvRun, DEFAULT_TABLE_LIMITS, () => undefined);
    expect('parsed' in csvUnderDefaults && csvUnderDefaults.parsed.read_limits).toBeUndefined();
  });

  it('recorded limits read back as the limits they were', () => {
    const odd: TableLimits = {
      maxRowChars: 5_000_000,
      maxFieldChars: 3_000_000,
      maxColumns: 4_000,
      maxRows: 20_000_000,
      maxUnpackedBytes: 2 ** 31,
      maxCompressionRatio: 500,
    };
    expect(readLimitsOf({ read_limits: recordedReadLimits(odd) })).toEqual(odd);
    expect(recordedReadLimits(DEFAULT_TABLE_LIMITS)).toBeUndefined();
    expect(readLimitsOf({})).toBe(DEFAULT_TABLE_LIMITS);
  });
});
