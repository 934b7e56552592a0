import Papa from 'papaparse';
import { Readable } from 'node:stream';
import { openDelimited } from './delimited-reader';
import { firstLineBreak, linebreakOf } from './line-break';
import { scanDelimited } from './delimited-scan';

/** A header with a stray quote, then a quoted value holding an LF, in a file whose rows end with CR. */
const STRAY_QUOTE_CR_FILE = 'name"x,note\r1,"c\nd"\r2,e\r';

describe('the line break a file is parsed with', () => {
  it('is the first line end outside quoted fields', () => {
    expect(firstLineBreak('a,b\n1,2\n', ',')).toBe('\n');
    expect(firstLineBreak('a,b\r\n1,2\r\n', ',')).toBe('\r\n');
    expect(firstLineBreak('a;b\r1;2\r', ';')).toBe('\r');
    // Line ends inside a quoted field are the value's, escaped quotes included.
    expect(firstLineBreak('"a\nb ""q""\r",c\r\n1,2\r\n', ',')).toBe('\r\n');
    expect(firstLineBreak('x,"",y\r1\r', ',')).toBe('\r');
    // A quote inside an unquoted field opens nothing.
    expect(firstLineBreak(STRAY_QUOTE_CR_FILE, ',')).toBe('\r');
  });

  it('is not told when the text cannot tell: no line end yet, a CR at its very end, an open quote', () => {
    expect(firstLineBreak('a,b', ',')).toBeNull();
    expect(firstLineBreak('a,b\r', ',')).toBeNull();
    expect(firstLineBreak('a,"b\n', ',')).toBeNull();
    // Then papaparse's guess is taken, as before.
    expect(linebreakOf('a,b\r', ',')).toBe(Papa.parse('a,b\r', { preview: 1 }).meta.linebreak);
  });

  it("keeps every row where papaparse's own guess, misled by a stray quote, joined them", async () => {
    // Papaparse pairs the stray quote with the next one, and then sees an LF before any CR.
    expect(Papa.parse(STRAY_QUOTE_CR_FILE, { preview: 1 }).meta.linebreak).toBe('\n');
    const rows: string[][] = [];
    const table = await openDelimited(Readable.from([Buffer.from(STRAY_QUOTE_CR_FILE)]), ',');
    for await (const batch of table.batches) rows.push(...batch);
    expect(rows).toEqual([
      ['name"x', 'note'],
      ['1', 'c\nd'],
      ['2', 'e'],
    ]);
    // The scan counts the same rows.
    const scan = await scanDelimited(Readable.from([Buffer.from(STRAY_QUOTE_CR_FILE)]), ',', { headRows: 5 });
    expect(scan).toMatchObject({ rows: 3, head: rows });
  });
});

/** Every row of a file, read as ingestion reads it. */
async function readAll(text: string, chunkBytes: number): Promise<string[][]> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.subarray(i, i + chunkBytes));
  const rows: string[][] = [];
  for await (const batch of (await openDelimited(Readable.from(chunks), ',')).batches) rows.push(...batch);
  return rows;
}

describe('a first row longer than the first piece', () => {
  // A quoted header value with a line break inside, longer than the 64 KiB first piece: cut before
  // the header's end, the first piece once left papaparse to guess, and every row was mis-read.
  const long = (inside: string) => `"${'z'.repeat(70_000)}${inside}z"`;

  it.each([
    ['a CRLF file with an LF inside the header', long('\n'), '\r\n'],
    ['an LF file with a CRLF inside the header', long('\r\n'), '\n'],
    ['a CR file with an LF inside the header', long('\n'), '\r'],
  ])('%s is read row by row, whatever the chunks', async (_name, header, lineEnd) => {
    const file = `${header},h2${lineEnd}1,2${lineEnd}3,4${lineEnd}`;
    for (const chunkBytes of [1 << 10, 16 << 10, 1 << 20]) {
      const rows = await readAll(file, chunkBytes);
      expect(rows.map((r) => r.map((c) => c.length))).toEqual([
        [header.length - 2, 2],
        [1, 1],
        [1, 1],
      ]);
      expect(rows.slice(1)).toEqual([
        ['1', '2'],
        ['3', '4'],
      ]);
    }
  });
});
