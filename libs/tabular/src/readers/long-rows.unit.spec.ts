import Papa from 'papaparse';
import { Readable } from 'node:stream';
import { inPieces, openDelimited, PIECE_CHARS } from './delimited-reader';
import { scanDelimited } from './delimited-scan';
import { DEFAULT_TABLE_LIMITS } from './source-problem';
import { HeadRows } from './head-rows';
import { NextOf } from './next-of';
import { PieceLength } from './piece-length';

/** Rows of about `rowChars` characters each: four cells, one quoted with a delimiter and a doubled quote inside. */
function longRowsCsv(rows: number, rowChars: number): string {
  const cell = Math.floor(rowChars / 4);
  let text = 'a,b,c,d\n';
  for (let i = 0; i < rows; i++) {
    const quoted = `"${i}, ""q"" ${'lorem ipsum, '.repeat(Math.floor(cell / 13))}"`;
    text += `${i}${'x'.repeat(cell)},${quoted},${'y'.repeat(cell)},${'z'.repeat(cell)}\n`;
  }
  return text;
}

/** The text as a byte stream in chunks of `chunk` bytes (storage streams hand over up to a MiB). */
const bytes = (text: string, chunk: number) => {
  const buf = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  return Readable.from(parts);
};

async function* texts(text: string, chars: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += chars) yield text.slice(i, i + chars);
}

const rowsOf = async (batches: AsyncIterable<string[][]>) => {
  const all: string[][] = [];
  for await (const b of batches) all.push(...b);
  return all;
};

describe('rows far longer than a piece of text', () => {
  it('hands over pieces at least as long as the unfinished row, so a 1.2 MB row is read about twice, not once per 16 KiB piece', async () => {
    const row = 'x'.repeat(1_200_000);
    const text = `id\n${row}\n`;
    const length = new PieceLength(PIECE_CHARS.parse);
    const pieces: string[] = [];
    let reread = 0; // what a parser that parses its unfinished row again with each piece reads in all
    for await (const piece of inPieces(texts(text, 32 * 1024), null, length, ',')) {
      pieces.push(piece);
      reread += length.unfinished();
      // The parser: its rows end after the header until the long row's line break arrives.
      length.rowsEndAt(pieces.join('').lastIndexOf('\n') + 1);
    }
    expect(pieces.join('')).toBe(text);
    // Fixed 16 KiB pieces would have the parser read 44 MB (the row again with each of its 74 pieces).
    expect(reread).toBeLessThan(3 * text.length);
    expect(pieces.length).toBeLessThan(20);
  });

  it('keeps short rows in pieces of the base length once the long row has ended', async () => {
    const text = `id\n${'x'.repeat(200_000)}\n${'1,2\n'.repeat(50_000)}`;
    const length = new PieceLength(PIECE_CHARS.parse);
    const sizes: number[] = [];
    let handed = '';
    for await (const piece of inPieces(texts(text, 32 * 1024), null, length, ',')) {
      handed += piece;
      sizes.push(piece.length);
      length.rowsEndAt(handed.lastIndexOf('\n') + 1);
    }
    expect(handed).toBe(text);
    expect(Math.max(...sizes.slice(-5))).toBeLessThanOrEqual(PIECE_CHARS.parse);
  });

  it('scans rows of 1 MB with each character looked at a few times, not once per piece', async () => {
    const text = longRowsCsv(3, 1_000_000);
    const reset = jest.spyOn(NextOf.prototype, 'reset');
    try {
      const scan = await scanDelimited(bytes(text, 1024 * 1024), null, { headRows: 1 });
      expect(scan.rows).toBe(4);
      // Each scan of a text searches it for four needles (delimiter, line break, CR, LF).
      const searched = reset.mock.calls.reduce((sum, [t]) => sum + t.length, 0) / 4;
      expect(searched).toBeLessThan(3 * text.length);
    } finally {
      reset.mockRestore();
    }
  });

  it('reads rows of 1 MB exactly as papaparse parses the whole text, on the first read and on later ones', async () => {
    const text = longRowsCsv(3, 1_000_000);
    const expected = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
    expect(expected).toHaveLength(4);
    expect(expected[2][1]).toMatch(/^1, "q" lorem ipsum, /);
    for (const alreadyIngested of [false, true]) {
      const table = await openDelimited(bytes(text, 1024 * 1024), null, { alreadyIngested });
      expect(await rowsOf(table.batches)).toEqual(expected);
    }
  });

  it('gives the first rows of 1 MB with quoted notes exactly as papaparse parses the whole text', async () => {
    const text = longRowsCsv(22, 1_000_000);
    const scan = await scanDelimited(bytes(text, 1024 * 1024), null, { headRows: 20 });
    expect(scan.rows).toBe(23);
    expect(scan.head).toEqual(Papa.parse<string[]>(text, { skipEmptyLines: true }).data.slice(0, 20));
  });

  it('parses the first rows as the scan sees them end, keeping no text of theirs but an unfinished row', () => {
    const head = new HeadRows(',', '\n', 3);
    head.add('a,b\n"1, one",x\n\n2,', 'a,b\n"1, one",x\n\n'.length);
    // Two rows are in while the third is still arriving: parsed then, not when the scan ends.
    expect(head.rows).toEqual([
      ['a', 'b'],
      ['1, one', 'x'],
    ]);
    expect(head.done()).toBe(false);
    head.add('"two ""2"""\n,\n3,three\n', 'a,b\n"1, one",x\n\n2,"two ""2"""\n,\n3,three\n'.length);
    expect(head.rows).toEqual([
      ['a', 'b'],
      ['1, one', 'x'],
      ['2', 'two "2"'],
    ]);
    expect(head.done()).toBe(true);
  });

  it('reads a last row without a line break at the end', () => {
    const head = new HeadRows(',', '\n', 20);
    head.add('a,b\n1,2', 4);
    head.end();
    expect(head.rows).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
});

describe('a first row past a MiB, under a raised MAX_ROW_CHARS', () => {
  // Four cells of 300,000 characters: a row of 1.2 MB, let in by a row limit of 2 MB (and a field limit of 512 KiB).
  const raised = { ...DEFAULT_TABLE_LIMITS, maxRowChars: 2 * 1024 * 1024, maxFieldChars: 512 * 1024 };
  const cell = (c: string) => c.repeat(300_000);
  const crlf = `${cell('a')},${cell('b')},${cell('c')},${cell('d')}\r\nada,lovelace,1815,london\r\nalan,turing,1912,wilmslow\r\n`;

  it('finds its CRLF at ingestion, as the scan reads it', async () => {
    const scan = await scanDelimited(bytes(crlf, 64 * 1024), ',', { limits: raised, headRows: 20 });
    expect(scan.rows).toBe(3);
    expect(scan.head.slice(1)).toEqual([
      ['ada', 'lovelace', '1815', 'london'],
      ['alan', 'turing', '1912', 'wilmslow'],
    ]);
    expect(scan.head[0][3]).toBe(cell('d'));
  });

  it('and in every later read under the same limits: no CR is left at the end of a row', async () => {
    const table = await openDelimited(bytes(crlf, 64 * 1024), ',', { limits: raised, alreadyIngested: true });
    const rows = await rowsOf(table.batches);
    expect(rows.slice(1)).toEqual([
      ['ada', 'lovelace', '1815', 'london'],
      ['alan', 'turing', '1912', 'wilmslow'],
    ]);
    expect(rows[0][3]).toBe(cell('d'));
  });
});
