import fc from 'fast-check';
import { Readable } from 'node:stream';
import { openDelimited, sniffDelimited } from './delimited-reader';
import { linebreakOf } from './line-break';
import { NotPlainDelimited, scanDelimited, scanFirstPart, scanLaterPart, type DelimitedScan } from './delimited-scan';
import { byteAfterNextLineFeed, joinScanParts } from './delimited-scan-parts';
import { DEFAULT_TABLE_LIMITS, type TableLimits } from './source-problem';

/*
 * A file scanned in two parts, split after any line feed, must either refuse to be joined or
 * join into exactly what one scan of the whole file learns: rows, width, first rows, and a row
 * index from whose entries a read yields the rows after them. When the line feed ends a row and
 * the whole file is plain, the parts must join (else the split would never help).
 */

const HEAD_ROWS = 1;

async function wholeScan(bytes: Buffer, limits: TableLimits): Promise<DelimitedScan | 'not plain'> {
  try {
    return await scanDelimited(Readable.from([bytes]), null, { limits, headRows: HEAD_ROWS });
  } catch (err) {
    if (err instanceof NotPlainDelimited) return 'not plain';
    throw err;
  }
}

/** The two parts' scans, split at `byte` (after a line feed), joined; 'not plain' when a part hands the file back. */
async function inTwo(
  bytes: Buffer,
  byte: number,
  limits: TableLimits,
): Promise<{ joined: DelimitedScan | null; aligned: boolean; firstRows: number } | 'not plain'> {
  const sniffed = await sniffDelimited(Readable.from([bytes]), null);
  sniffed.replay.destroy();
  const start = {
    byte,
    encoding: sniffed.encoding,
    delimiter: sniffed.delimiter,
    linebreak: linebreakOf(sniffed.sample, sniffed.delimiter),
  };
  try {
    const first = await scanFirstPart(Readable.from([bytes.subarray(0, byte)]), start.delimiter, {
      limits,
      headRows: HEAD_ROWS,
    });
    const later = await scanLaterPart(Readable.from([bytes.subarray(byte)]), start, { limits });
    return { joined: joinScanParts(first, later, start, limits, HEAD_ROWS), aligned: first.endsAtRowStart, firstRows: first.scan.rows };
  } catch (err) {
    if (err instanceof NotPlainDelimited) return 'not plain';
    throw err;
  }
}

async function allRows(bytes: Buffer): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const batch of (await openDelimited(Readable.from([bytes]), null)).batches) rows.push(...batch);
  return rows;
}

/** Every entry of the joined index: a read from its byte yields exactly the rows after it. */
async function expectEntriesValid(bytes: Buffer, scan: DelimitedScan): Promise<void> {
  const rows = await allRows(bytes);
  expect(scan.rowIndex!.rows).toBe(rows.length);
  for (const [before, byte] of scan.rowIndex!.entries) {
    const table = await openDelimited(Readable.from([bytes.subarray(byte)]), scan.delimiter, {
      alreadyIngested: true,
      encoding: scan.encoding,
      resumeWithLinebreak: scan.rowIndex!.linebreak,
    });
    const after: string[][] = [];
    for await (const batch of table.batches) after.push(...batch);
    expect(after).toEqual(rows.slice(before));
  }
}

const lineFeedsOf = (bytes: Buffer): number[] => {
  const at: number[] = [];
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) at.push(i + 1);
  return at.filter((b) => b < bytes.length);
};

// One line break per file (a file that mixes them is handed back whole by the scan); EOL stands for it.
const token = fc.constantFrom('a', 'bc', 'é日', ' ', ',', ',', 'EOL', 'EOL', 'EOL', '"q"', '"a,b"', '"xEOLy"', '"\n"', '""', '"x"y', '\t');
const text = fc
  .tuple(fc.array(token, { maxLength: 150 }), fc.constantFrom('\n', '\r\n'))
  .map(([t, eol]) => ('h1,h2,h3EOL' + t.join('')).replace(/EOL/g, eol));

describe('a delimited file scanned in two parts', () => {
  it('joins into what one scan learns, or not at all; and always joins at a row end of a plain file', async () => {
    let joinedCount = 0;
    await fc.assert(
      fc.asyncProperty(text, fc.nat(), fc.constantFrom(3, 1000), async (s, pick, maxRows) => {
        const bytes = Buffer.from(s, 'utf8');
        const splits = lineFeedsOf(bytes);
        if (splits.length === 0) return;
        const limits = { ...DEFAULT_TABLE_LIMITS, maxRows };
        const whole = await wholeScan(bytes, limits);
        const parts = await inTwo(bytes, splits[pick % splits.length], limits);
        if (parts === 'not plain' || parts.joined === null) {
          // Not joined: never when the whole is plain and the split is at a row end after the first rows.
          if (whole !== 'not plain' && parts !== 'not plain' && parts.aligned && parts.firstRows >= HEAD_ROWS)
            throw new Error('a plain file split at a row end was not joined');
          return;
        }
        joinedCount++;
        expect(whole).not.toBe('not plain');
        const { rowIndex, ...learned } = parts.joined;
        const { rowIndex: _, ...expected } = whole as DelimitedScan;
        expect(learned).toEqual(expected);
        await expectEntriesValid(bytes, parts.joined);
      }),
      { numRuns: 1500 },
    );
    expect(joinedCount).toBeGreaterThan(300);
  });

  it('refuses a split inside a quoted field and joins at every row end of a 350 KB file (CRLF, quoted line breaks, UTF-8)', async () => {
    const rows = Array.from({ length: 12_000 }, (_, i) =>
      [String(i), i % 7 === 0 ? `"line\r\nbreak ${i}"` : `plain ${i}`, '日本語'].join(','),
    );
    const bytes = Buffer.from('id,text,x\r\n' + rows.join('\r\n') + '\r\n', 'utf8');
    const whole = (await wholeScan(bytes, DEFAULT_TABLE_LIMITS)) as DelimitedScan;
    const middle = bytes.length >> 1;
    const near = lineFeedsOf(bytes).filter((b) => b > middle - 2_000 && b < middle + 2_000);
    let inside = 0;
    for (const byte of near) {
      const parts = await inTwo(bytes, byte, DEFAULT_TABLE_LIMITS);
      const quoted = bytes.subarray(byte - 7, byte).toString() === '"line\r\n';
      if (quoted) {
        inside++;
        expect(parts !== 'not plain' && parts.joined).toBeFalsy();
        continue;
      }
      if (parts === 'not plain' || !parts.joined) throw new Error(`not joined at a row end (byte ${byte})`);
      expect(parts.joined.rows).toBe(whole.rows);
      expect(parts.joined.head).toEqual(whole.head);
    }
    expect(inside).toBeGreaterThan(0);
    // One split checked all the way: every entry of the joined index reads on correctly.
    const rowEnd = near.find((b) => bytes.subarray(b - 7, b).toString() !== '"line\r\n')!;
    const parts = await inTwo(bytes, rowEnd, DEFAULT_TABLE_LIMITS);
    if (parts === 'not plain' || !parts.joined) throw new Error('not joined');
    expect(parts.joined.rowIndex!.entries.length).toBeGreaterThan(3);
    await expectEntriesValid(bytes, parts.joined);
  });

  it('finds the byte after the next line feed, and none before a byte-order mark or past the look-ahead', async () => {
    const bytes = Buffer.from('abc\ndef\n\uFEFFx\n', 'utf8');
    expect(await byteAfterNextLineFeed(Readable.from([bytes.subarray(1)]), 1, 100)).toBe(4);
    expect(await byteAfterNextLineFeed(Readable.from([bytes.subarray(5, 6), bytes.subarray(6)]), 5, 100)).toBeNull();
    expect(await byteAfterNextLineFeed(Readable.from([Buffer.from('x'.repeat(50) + '\n')]), 0, 20)).toBeNull();
  });
});
