import fc from 'fast-check';
import iconv from 'iconv-lite';
import { Readable } from 'node:stream';
import { openDelimited } from './delimited-reader';
import { entryAtOrBefore, type RowIndex } from './row-index';

async function readAll(table: { batches: AsyncIterable<string[][]> }): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
}

/** A first read of the file (as ingestion does): its rows and the index it recorded. */
async function ingest(bytes: Buffer): Promise<{ rows: string[][]; index: RowIndex | null; encoding: string; delimiter: string }> {
  const table = await openDelimited(Readable.from([bytes]), null);
  const rows = await readAll(table);
  return { rows, index: table.rowIndex(), encoding: table.encoding, delimiter: table.delimiter! };
}

async function readFrom(bytes: Buffer, byte: number, first: Awaited<ReturnType<typeof ingest>>): Promise<string[][]> {
  const table = await openDelimited(Readable.from([bytes.subarray(byte)]), first.delimiter, {
    alreadyIngested: true,
    encoding: first.encoding,
    resumeWithLinebreak: first.index!.linebreak,
  });
  return readAll(table);
}

// Cells that exercise what moves row starts: quotes, delimiters and line breaks inside quotes,
// multi-byte characters (2, 3 and 4 bytes in UTF-8), blanks.
const cell = fc.oneof(
  fc.constantFrom('', ' ', 'plain', 'é', '日本', '🙂x', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', '""', '  padded  '),
  fc.string({ maxLength: 12 }).map((s) => s.replace(/\0/g, '')),
);
const quoteIfNeeded = (v: string) => (/[",\r\n]/.test(v) || v.startsWith(' ') ? `"${v.replace(/"/g, '""')}"` : v);

function csvOf(rows: string[][], eol: string, blankEvery: number): string {
  return rows
    .map((r, i) => [String(i), ...r].map(quoteIfNeeded).join(',') + eol + (blankEvery > 0 && i % blankEvery === 0 ? eol + ',,' + eol : ''))
    .join('');
}

describe('row index', () => {
  it('reading from any entry yields exactly the rows after it in a read from the top (UTF-8, BOM, CRLF, blank lines, quoted line breaks)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 50, maxLength: 120 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.nat(40),
        async (sample, eol, bom, blankEvery) => {
          // Repeated to pass several 64 KiB pieces, so the index has many entries.
          const once = csvOf(sample, eol, blankEvery);
          const text = 'n,a,b,c' + eol + once.repeat(Math.ceil(200_000 / once.length));
          const bytes = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text, 'utf8')]);
          const first = await ingest(bytes);
          expect(first.index).not.toBeNull();
          expect(first.index!.rows).toBe(first.rows.length);
          expect(first.index!.entries.length).toBeGreaterThan(2);
          const entries = first.index!.entries;
          for (const [before, byte] of [entries[0], entries[entries.length >> 1], entries[entries.length - 1]]) {
            const rest = await readFrom(bytes, byte, first);
            expect(rest).toEqual(first.rows.slice(before));
          }
        },
      ),
      { numRuns: 10 },
    );
  }, 180_000);

  it.each([['utf-16le'], ['windows-1252']])('records exact byte offsets in %s', async (encoding) => {
    const line = (i: number) => `${i},"Müller, ""Zoë""",Straße ${i}\r\n`;
    const text = 'id,name,street\r\n' + Array.from({ length: 8000 }, (_, i) => line(i)).join('');
    const bom = encoding === 'utf-16le' ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0);
    const bytes = Buffer.concat([bom, iconv.encode(text, encoding)]);
    const first = await ingest(bytes);
    expect(first.encoding).toBe(encoding);
    expect(first.index!.entries.length).toBeGreaterThan(2);
    for (const [before, byte] of first.index!.entries.slice(0, 4)) {
      expect(await readFrom(bytes, byte, first)).toEqual(first.rows.slice(before));
    }
  });

  it('counts a 4-byte character that falls on a 64 KiB piece boundary once (its surrogate halves are never split)', async () => {
    const head = 'id,text\n';
    // The emoji's first half is the 65,536th character: where the reader would cut its first piece.
    const text =
      head +
      '1,' +
      'x'.repeat(65_535 - head.length - 2) +
      '🙂\n' +
      Array.from({ length: 20_000 }, (_, i) => `${i + 2},plain ${i}\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    const first = await ingest(bytes);
    const entries = first.index!.entries;
    expect(entries.length).toBeGreaterThan(2);
    for (const [before, byte] of [entries[0], entries[entries.length >> 1], entries[entries.length - 1]]) {
      expect(await readFrom(bytes, byte, first)).toEqual(first.rows.slice(before));
    }
  });

  it.each(['utf-8', 'utf-16le'])(
    'keeps a U+FEFF that starts a row in the middle of a %s file when reading from there, as the read from the top keeps it',
    async (encoding) => {
      const text = 'id,name\n1,plain\n\uFEFF2,starts with U+FEFF\n3,after\n';
      const bom = encoding === 'utf-8' ? [0xef, 0xbb, 0xbf] : [0xff, 0xfe];
      const bytes = Buffer.concat([Buffer.from(bom), iconv.encode(text, encoding)]);
      const first = await ingest(bytes);
      expect(first.encoding).toBe(encoding);
      expect(first.rows[2]).toEqual(['\uFEFF2', 'starts with U+FEFF']);
      const rowStart = bytes.indexOf(iconv.encode('\uFEFF2', encoding), bom.length);
      const table = await openDelimited(Readable.from([bytes.subarray(rowStart)]), ',', {
        alreadyIngested: true,
        encoding,
        resumeWithLinebreak: '\n',
      });
      expect(await readAll(table)).toEqual(first.rows.slice(2));
    },
  );

  it('finds the last entry at or before a row', () => {
    const index: RowIndex = {
      version: 1,
      linebreak: '\n',
      rows: 100,
      entries: [
        [10, 50],
        [20, 90],
        [35, 200],
      ],
    };
    expect(entryAtOrBefore(index, 5)).toBeNull();
    expect(entryAtOrBefore(index, 10)).toEqual({ rows: 10, byte: 50 });
    expect(entryAtOrBefore(index, 34)).toEqual({ rows: 20, byte: 90 });
    expect(entryAtOrBefore(index, 99)).toEqual({ rows: 35, byte: 200 });
  });
});
