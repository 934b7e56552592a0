import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { LocalBlobStore } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import type { RunState } from '@app/domain';
import { readMappedSource, readPlannedRows } from './mapped-rows';
import { withTempBlobStore } from './testing/temp-blob-store';
import { writeOutputPart, writeRunOutput } from './write-output';
import { WHOLE_FILE } from './row-range';
import { storedCsvRun } from './testing/stored-csv-run';
import { openFilesSettleAt, openFilesUnder } from '../../../test/support/open-files';

const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true },
  name: { description: 'n', data_type: 'string', is_required: false },
};

/** The streams the store's reads opened, kept to see whether they were closed. */
function recordingReads(blobs: LocalBlobStore): Readable[] {
  const opened: Readable[] = [];
  const openRead = blobs.openRead.bind(blobs);
  jest.spyOn(blobs, 'openRead').mockImplementation(async (key, options) => {
    const stream = await openRead(key, options);
    opened.push(stream);
    return stream;
  });
  return opened;
}

/** Lets the streams' close (destroy's end) happen. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('a run source read and given up before its first batch', () => {
  let blobs: LocalBlobStore;
  let storeDir: string;
  withTempBlobStore('mapped-rows-', (b, dir) => ((blobs = b), (storeDir = dir)));
  let n = 0;

  // Past the first chunk a read takes (1 MiB): a smaller file is read to its end as the reader sniffs its top, and closed.
  const storedRun = (outputFormat: 'json' | 'csv'): Promise<RunState> =>
    storedCsvRun(blobs, `r${++n}`, ['Mail,Name\n', 'a@b.org,Ann\n'.repeat(100_000)], FIELDS, ['Mail', 'Name'], {
      output_format: outputFormat,
      mapping_rule: { email: 'Mail', name: 'Name' },
    });

  afterEach(() => jest.restoreAllMocks());

  it('closes the stream when the planned rows are given up unread', async () => {
    const run = await storedRun('csv');
    const opened = recordingReads(blobs);
    const source = await readPlannedRows(blobs, run, run.mapping_rule!);
    await source.batches.return(undefined);
    await settled();
    expect(opened).toHaveLength(1);
    expect(opened.every((stream) => stream.destroyed)).toBe(true);
  });

  it('closes the stream when the mapped rows are given up unread', async () => {
    const run = await storedRun('csv');
    const opened = recordingReads(blobs);
    const source = await readMappedSource(blobs, run, run.mapping_rule!, { typed: false });
    await source.batches.return(undefined);
    await settled();
    expect(opened).toHaveLength(1);
    expect(opened.every((stream) => stream.destroyed)).toBe(true);
  });

  it("closes a workbook's package when its rows are given up unread, or its output's put is refused", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('People');
    sheet.addRow(['Mail', 'Name']);
    for (let i = 0; i < 50; i++) sheet.addRow([`a${i}@b.org`, 'Ann']);
    const csvRun = await storedRun('json');
    const key = `runs/${csvRun.id}/book`;
    await blobs.put(key, Readable.from([Buffer.from(await workbook.xlsx.writeBuffer())]));
    const run = {
      ...csvRun,
      source_key: key,
      rows_key: key,
      source_format: 'xlsx' as const,
      delimiter: null,
      encoding: null,
      sheet: 'People',
    };
    // An earlier test's store files finish closing first.
    const before = await openFilesSettleAt(storeDir, []);
    const planned = await readPlannedRows(blobs, run, run.mapping_rule!);
    // The reader opened the workbook's file by its path, past the stream it was handed.
    expect(openFilesUnder(storeDir).length).toBeGreaterThan(before.length);
    await planned.batches.return(undefined);
    await (await readMappedSource(blobs, run, run.mapping_rule!, { typed: false })).batches.return(undefined);
    jest.spyOn(blobs, 'put').mockRejectedValue(new Error('EACCES: the output directory cannot be made'));
    await expect(writeRunOutput(blobs, run, `runs/${run.id}/output.json`, () => undefined)).rejects.toThrow(/EACCES/);
    expect(await openFilesSettleAt(storeDir, before)).toEqual(before);
  });

  it.each(['json', 'csv'] as const)('closes the source of a %s output whose put is refused before it read a byte', async (format) => {
    const run = await storedRun(format);
    const opened = recordingReads(blobs);
    // A store that fails before it takes the body (a directory it cannot make, a temporary file it cannot open).
    jest.spyOn(blobs, 'put').mockRejectedValue(new Error('EACCES: the output directory cannot be made'));
    await expect(writeRunOutput(blobs, run, `runs/${run.id}/output.${format}`, () => undefined)).rejects.toThrow(/EACCES/);
    await expect(writeOutputPart(blobs, run, `runs/${run.id}/part-1`, WHOLE_FILE, () => undefined)).rejects.toThrow(/EACCES/);
    await settled();
    expect(opened).toHaveLength(2);
    expect(opened.every((stream) => stream.destroyed)).toBe(true);
  });
});

describe('a read the row scanner hands back part of the way', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('mapped-rows-handed-back-', (b) => (blobs = b));
  afterEach(() => jest.restoreAllMocks());

  const all = async (source: { batches: AsyncIterable<string[][]> }): Promise<string[][]> => {
    const rows: string[][] = [];
    for await (const batch of source.batches) rows.push(...batch);
    return rows;
  };

  it('goes on with papaparse from where it stopped, past the rows it gave, and reads the file with papaparse after', async () => {
    // A field of 80 characters at data row 4,500, over the recorded limit of 50: the scanner hands the file back there
    // (a limit it checks is crossed), and papaparse, which an ingested file's reads do not limit, reads on.
    const lines = Array.from({ length: 5_000 }, (_, i) => `p${i}@x.org,${i === 4_499 ? 'n'.repeat(80) : `"Name, ""${i}"""`}`);
    const limits = {
      max_row_chars: 1024 * 1024,
      max_field_chars: 50,
      max_columns: 1000,
      max_rows: 1_000_000,
      max_unpacked_bytes: 1e9,
      max_compression_ratio: 100,
    };
    const run = await storedCsvRun(blobs, 'handed-back', ['Mail,Name\n', lines.join('\n') + '\n'], FIELDS, ['Mail', 'Name'], {
      mapping_rule: { email: 'Mail', name: 'Name' },
      read_limits: limits,
    });
    const expected = lines.map((_, i) => [`p${i}@x.org`, i === 4_499 ? 'n'.repeat(80) : `Name, "${i}"`]);
    const opened = recordingReads(blobs);

    expect(await all(await readPlannedRows(blobs, run, run.mapping_rule!))).toEqual(expected);
    expect(opened).toHaveLength(2); // the scanner's read, then papaparse's
    // Known now not to be plain: read by papaparse at once (one stream).
    expect(await all(await readPlannedRows(blobs, run, run.mapping_rule!, null, 2_500))).toEqual(expected.slice(2_499));
    expect(opened).toHaveLength(3);

    // The same file under another key, from a row before the one handed back, one column read: the rows of that column,
    // none twice (the scanner's with the other column empty, then papaparse's whole).
    const again = await storedCsvRun(blobs, 'handed-back-again', ['Mail,Name\n', lines.join('\n') + '\n'], FIELDS, ['Mail', 'Name'], {
      mapping_rule: { email: 'Mail', name: 'Name' },
      read_limits: limits,
    });
    const some = await all(await readPlannedRows(blobs, again, again.mapping_rule!, null, 2_500, { fieldsRead: ['name'] }));
    expect(some.map(([, name]) => name)).toEqual(expected.slice(2_499).map(([, name]) => name));
    expect(some[0]).toEqual(['', 'Name, "2499"']);
    expect(some[some.length - 1]).toEqual(expected[4_999]);
    expect(opened).toHaveLength(5);

    // A file the scanner reads to its end is read once, by it.
    const plain = await storedCsvRun(blobs, 'plain', ['Mail,Name\n', 'a@b.org,Ann\n'.repeat(3_000)], FIELDS, ['Mail', 'Name'], {
      mapping_rule: { email: 'Mail', name: 'Name' },
    });
    expect(await all(await readPlannedRows(blobs, plain, plain.mapping_rule!, null, 1, { fieldsRead: ['email'] }))).toEqual(
      Array.from({ length: 3_000 }, () => ['a@b.org', '']),
    );
    expect(opened).toHaveLength(6);
  });
});
