import fc from 'fast-check';
import { Readable } from 'node:stream';
import { openDelimited } from './delimited-reader';
import { NotPlainDelimited, scanDelimited } from './delimited-scan';
import { filledWidth, rowWidthsBelow, valuesWidthOf, type RowWidthCount, type RowWidthTallies } from './row-widths';
import { DEFAULT_TABLE_LIMITS, SourceProblem, type TableLimits } from './source-problem';
import { cutInto, delimitedToken } from './testing/random-delimited';

/*
 * Ingestion's scan must learn of a file exactly what reading all its rows with papaparse
 * (openDelimited, the reader every later read uses) gives: the row count, the width, the
 * first rows, how many rows have each number of fields, the same refusals, and a row index from which a read yields the rows after
 * it. Or it must say the file is not plain (and ingestion reads it with papaparse).
 */
type Learned = { rows: number; width: number; head: string[][] } | { problem: string } | 'not plain';

const HEAD_ROWS = 20;

async function byReader(bytes: Buffer[], limits: TableLimits): Promise<Learned> {
  try {
    const table = await openDelimited(Readable.from(bytes), null, { limits });
    const rows: string[][] = [];
    for await (const batch of table.batches) rows.push(...batch);
    return { rows: rows.length, width: Math.max(0, ...rows.map(filledWidth)), head: rows.slice(0, HEAD_ROWS) };
  } catch (err) {
    if (err instanceof SourceProblem) return { problem: `${err.kind}: ${err.message}` };
    throw err;
  }
}

async function byScan(bytes: Buffer[], limits: TableLimits): Promise<Learned> {
  try {
    const scan = await scanDelimited(Readable.from(bytes), null, { limits, headRows: HEAD_ROWS });
    return { rows: scan.rows, width: valuesWidthOf(rowWidthsBelow(scan.widths, 0)), head: scan.head };
  } catch (err) {
    if (err instanceof NotPlainDelimited) return 'not plain';
    if (err instanceof SourceProblem) return { problem: `${err.kind}: ${err.message}` };
    throw err;
  }
}

/**
 * How many rows have each number of fields, and each number up to their last field with a value, and the first of each
 * (1 = the first row), counted from the rows the full read yields. Fields are counted up to one past the column limit:
 * a row may end with any number of empty ones past it.
 */
async function widthsByReader(bytes: Buffer[], limits: TableLimits, skip: number): Promise<RowWidthTallies> {
  const table = await openDelimited(Readable.from(bytes), null, { limits });
  const byCells = new Map<number, RowWidthCount>();
  const byFilled = new Map<number, RowWidthCount>();
  const tally = (tallies: Map<number, RowWidthCount>, width: number, row: number) => {
    const seen = tallies.get(width);
    if (seen) seen[1]++;
    else tallies.set(width, [width, 1, row]);
  };
  let row = 0;
  for await (const batch of table.batches)
    for (const fields of batch) {
      if (++row <= skip) continue;
      tally(byCells, Math.min(fields.length, limits.maxColumns + 1), row);
      tally(byFilled, fields.map((field) => field.trim() !== '').lastIndexOf(true) + 1, row);
    }
  const sorted = (tallies: Map<number, RowWidthCount>) => [...tallies.values()].sort((a, b) => a[0] - b[0]);
  return { cells: sorted(byCells), filled: sorted(byFilled) };
}

/** Whether the scan read the file itself (else it handed it back); when it did, it must have learned what the full read learns. */
async function scannedAsRead(bytes: Buffer[], limits: TableLimits): Promise<boolean> {
  const scanned = await byScan(bytes, limits);
  if (scanned === 'not plain') return false;
  expect(scanned).toEqual(await byReader(bytes, limits));
  if (!('problem' in scanned)) {
    const scan = await scanDelimited(Readable.from(bytes), null, { limits, headRows: HEAD_ROWS });
    // With and without a title's rows left out (as many as the scan kept apart, up to two).
    const skip = Math.min(2, scan.widths.top.length);
    expect(rowWidthsBelow(scan.widths, 0)).toEqual(await widthsByReader(bytes, limits, 0));
    expect(rowWidthsBelow(scan.widths, skip)).toEqual(await widthsByReader(bytes, limits, skip));
  }
  return true;
}

/** What the full read learns of a file the scan handed back (asserted to be one). */
async function handedBackThenRead(bytes: Buffer[], limits: TableLimits): Promise<Learned> {
  expect(await byScan(bytes, limits)).toBe('not plain');
  return byReader(bytes, limits);
}

const token = delimitedToken();
const text = fc.array(token, { maxLength: 120 }).map((t) => 'h1,h2,h3\n' + t.join(''));

describe('ingestion scan of a delimited file', () => {
  it('learns what a full read with papaparse learns, or says the file is not plain', async () => {
    let plain = 0;
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.record({
          maxRowChars: fc.constantFrom(20, 1000),
          maxColumns: fc.constantFrom(3, 50),
          maxRows: fc.constantFrom(4, 1000),
          maxFieldChars: fc.constantFrom(3, 1000),
        }),
        async (s, cuts, small) => {
          const limits = { ...DEFAULT_TABLE_LIMITS, ...small };
          if (await scannedAsRead(cutInto(Buffer.from(s, 'utf8'), cuts), limits)) plain++;
        },
      ),
      { numRuns: 2500 },
    );
    // Not vacuous: many inputs are read by the scan. The others cross one of the small limits, or mix
    // line breaks (a CR in a file of LFs), and are handed back to the full read, which refuses or reads them.
    expect(plain).toBeGreaterThan(600);
  });

  it('hands back, without refusing, a file over a limit or with another line break inside a field: the full read decides', async () => {
    const limits = { ...DEFAULT_TABLE_LIMITS, maxRowChars: 30, maxFieldChars: 10 };
    const cases: [string, Learned][] = [
      ['id,name\n1,short\n2,' + 'x'.repeat(40) + '\n', { problem: 'rowTooLarge: Line 3 is longer than 30 characters.' }],
      ['id,name\n1,abcdefghijkl\n', { problem: 'fieldTooLarge: Row 2, column 2 has 12 characters; at most 10 are allowed.' }],
      ['id,name\n1,"never closed\n2,b\n', { problem: 'unterminatedQuote: The quoted field starting on line 2 is never closed.' }],
      [
        'a,b\n1,"5"x\n7,8\n',
        {
          problem:
            "malformedQuote: On line 2, a quoted field's closing quote is followed by other text before the next delimiter or line end. " +
            'Quote the whole field and double each quote inside it (for example "5""x").',
        },
      ],
    ];
    for (const [text, refusal] of cases) {
      expect(await handedBackThenRead([Buffer.from(text, 'utf8')], limits)).toEqual(refusal);
    }
    // A lone CR in a file of LFs: papaparse would keep it in the value and the file may mean a line end there; the full
    // read refuses it, naming the line (since 2026-11-30: "4,5,6\r7,8,9" in a CRLF file was one row, silently).
    const mixed = [Buffer.from('id,name\n1,a\rb\n2,c\n', 'utf8')];
    expect(await handedBackThenRead(mixed, limits)).toEqual({
      problem:
        'mixedLineEnds: Line 2 ends with a carriage return (CR) alone, but the lines before it end with a line feed (LF). ' +
        'Save the file with one kind of line end.',
    });
    // The same file without the CR and within the limits is read by the scan alone.
    expect(await byScan([Buffer.from('id,name\n1,ab\n2,c\n', 'utf8')], limits)).toEqual({
      rows: 3,
      width: 2,
      head: [
        ['id', 'name'],
        ['1', 'ab'],
        ['2', 'c'],
      ],
    });
  });

  it('learns the same across piece boundaries: the random text after 66 KB of rows, cut into small pieces', async () => {
    // The first 64 KiB reach the scan as one piece (the sniffing peeks that much), so small files are never cut.
    const filler = 'h1,h2,h3\n' + 'x,y,z\n'.repeat(11_000);
    let plain = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(token, { maxLength: 120 }),
        fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 8 }),
        // Rows of at least 4,000 characters: the first 66 KB must fit what the first rows may take (21 rows).
        fc.record({ maxRowChars: fc.constantFrom(4_000, 1024 * 1024), maxFieldChars: fc.constantFrom(3, 1000) }),
        async (tokens, sizes, small) => {
          const limits = { ...DEFAULT_TABLE_LIMITS, ...small };
          const bytes = Buffer.from(filler + tokens.join(''), 'utf8');
          // One piece of 66,000 bytes, then pieces of the sizes drawn, in turn.
          const pieces = [bytes.subarray(0, 66_000)];
          for (let at = 66_000, i = 0; at < bytes.length; i++) {
            const size = sizes[i % sizes.length];
            pieces.push(bytes.subarray(at, at + size));
            at += size;
          }
          if (await scannedAsRead(pieces, limits)) plain++;
        },
      ),
      { numRuns: 150 },
    );
    expect(plain).toBeGreaterThan(30);
  }, 120_000);

  it('hands back a file whose byte-order mark follows blank lines (the full read strips it from the first row)', async () => {
    const bytes = [Buffer.concat([Buffer.from('\n'), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,b\n1,2\n')])];
    expect(await handedBackThenRead(bytes, DEFAULT_TABLE_LIMITS)).toEqual({
      rows: 2,
      width: 2,
      head: [
        ['a', 'b'],
        ['1', '2'],
      ],
    });
  });

  it.each([['\r\n'], ['\r']])(
    'reads a %j file whose header of 1,000 long names is longer than a later parse piece: the line break is guessed on the first 64 KiB',
    async (linebreak) => {
      const header = Array.from({ length: 1000 }, (_, i) => `column_name_${String(i).padStart(4, '0')}`);
      const rows = [header, ...Array.from({ length: 50 }, (_, r) => header.map((_, c) => `${r}.${c}`))];
      const bytes = [Buffer.from(rows.map((row) => row.join(',')).join(linebreak) + linebreak, 'utf8')];
      expect(bytes[0].indexOf(linebreak)).toBeGreaterThan(16 * 1024);
      const learned = { rows: 51, width: 1000, head: rows.slice(0, HEAD_ROWS) };
      expect(await byReader(bytes, DEFAULT_TABLE_LIMITS)).toEqual(learned);
      expect(await byScan(bytes, DEFAULT_TABLE_LIMITS)).toEqual(learned);
    },
  );

  it.each([
    ['in one chunk', [] as number[]],
    ['in chunks that end on the CR', [65_535 + 1]],
    ['in chunks that end on the LF', [65_535 + 2]],
  ])('reads a CRLF file whose first CR is the last character of the first piece (%s)', async (_, cuts) => {
    // 400 columns whose names fill the header to exactly 65,535 characters: its CR is character 65,536.
    const header = Array.from({ length: 400 }, (_, i) => `column_${i}_`.padEnd(163, 'x'));
    header[399] = header[399].slice(0, header[399].length - (header.join(',').length - 65_535));
    expect(header.join(',').length).toBe(65_535);
    const rows = [header, ...Array.from({ length: 30 }, (_, r) => header.map((_, c) => `${r}.${c}`))];
    const text = rows.map((row) => row.join(',')).join('\r\n') + '\r\n';
    const bytes = cutInto(Buffer.from(text, 'utf8'), cuts);
    const learned = { rows: 31, width: 400, head: rows.slice(0, HEAD_ROWS) };
    expect(await byReader(bytes, DEFAULT_TABLE_LIMITS)).toEqual(learned);
    expect(await byScan(bytes, DEFAULT_TABLE_LIMITS)).toEqual(learned);
  });

  it.each([
    // 65,535 characters, one of them two bytes in UTF-8: the first 64 KiB chunk is the header without its line break.
    ['a first chunk of 64 KiB', (i: number) => `column_${i}_`.padEnd(163, 'x'), 65_534, 'é', 64 * 1024],
    // About 68 KB of mostly three-byte characters, in chunks of 16 KiB as a bucket's connection may hand them over.
    ['chunks of 16 KiB', (i: number) => `列${i}_`.padEnd(58, '名'), 22_999, '名', 16 * 1024],
  ])('reads a CRLF file whose first line is longer than its first piece of text (%s)', async (_, name, ascii, last, chunkBytes) => {
    const header = Array.from({ length: 400 }, (__, i) => name(i));
    const joined = header.join(',');
    header[399] = header[399].slice(0, header[399].length - (joined.length - ascii)) + last;
    const rows = [header, ...Array.from({ length: 30 }, (__, r) => header.map((___, c) => `${r}.${c}`))];
    const bytes = Buffer.from(rows.map((row) => row.join(',')).join('\r\n') + '\r\n', 'utf8');
    // Past the 64 KiB the sniffing looks at, which reaches the reader as its first chunk.
    expect(bytes.indexOf('\r\n')).toBeGreaterThanOrEqual(64 * 1024);
    const chunks = cutInto(
      bytes,
      Array.from({ length: Math.ceil(bytes.length / chunkBytes) }, (__, k) => (k + 1) * chunkBytes),
    );
    const learned = { rows: 31, width: 400, head: rows.slice(0, HEAD_ROWS) };
    expect(await byReader(chunks, DEFAULT_TABLE_LIMITS)).toEqual(learned);
    expect(await byScan(chunks, DEFAULT_TABLE_LIMITS)).toEqual(learned);
  });

  it('gives a row index from whose every entry a read yields the rows after it, across many pieces', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('\n', '\r\n'), fc.nat(7), async (eol, blankEvery) => {
        const rows = Array.from({ length: 30_000 }, (_, i) =>
          [String(i), i % 3 === 0 ? `"Müller, ""${i}""${eol}x"` : `plain ${i}`, i % 5 === 0 ? '' : '日本'].join(','),
        );
        const body = rows.map((r, i) => r + eol + (blankEvery > 0 && i % blankEvery === 0 ? ` ,${eol}` : '')).join('');
        const bytes = Buffer.from('id,name,x' + eol + body, 'utf8');
        const scan = await scanDelimited(Readable.from([bytes]), null, { headRows: HEAD_ROWS });
        const full = await byReader([bytes], DEFAULT_TABLE_LIMITS);
        expect(scan.rows).toBe((full as { rows: number }).rows);
        const all: string[][] = [];
        for await (const batch of (await openDelimited(Readable.from([bytes]), null)).batches) all.push(...batch);
        const entries = scan.rowIndex!.entries;
        expect(entries.length).toBeGreaterThan(5);
        for (const [before, byte] of [entries[0], entries[entries.length >> 1], entries[entries.length - 1]]) {
          const table = await openDelimited(Readable.from([bytes.subarray(byte)]), scan.delimiter, {
            alreadyIngested: true,
            encoding: scan.encoding,
            resumeWithLinebreak: scan.rowIndex!.linebreak,
          });
          const rest: string[][] = [];
          for await (const batch of table.batches) rest.push(...batch);
          expect(rest).toEqual(all.slice(before));
        }
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});
