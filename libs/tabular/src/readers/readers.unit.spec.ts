import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { PassThrough, Readable } from 'node:stream';
import { openDelimited, sniffDelimited } from './delimited-reader';
import { SourceProblem } from './source-problem';
import { openXlsx } from './xlsx-reader';
import { tableFormatOf } from './table-reader';

const rowsOf = async (batches: AsyncIterable<string[][]>) => {
  const all: string[][] = [];
  for await (const b of batches) all.push(...b);
  return all;
};

/** A byte stream cut into tiny chunks, so that multi-byte characters straddle chunk boundaries. */
const bytes = (text: string, chunk = 3) => {
  const buf = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  return Readable.from(parts);
};

describe('delimited reader', () => {
  it('reads quoted fields with delimiters, quotes and newlines, and strips a UTF-8 BOM', async () => {
    const t = await openDelimited(bytes('\uFEFFname,note\r\n"Müller, Jörg","said ""hi""\nthen left"\r\nЖанна,ok\r\n'), null);
    expect(t.delimiter).toBe(',');
    expect(await rowsOf(t.batches)).toEqual([
      ['name', 'note'],
      ['Müller, Jörg', 'said "hi"\nthen left'],
      ['Жанна', 'ok'],
    ]);
  });

  it('reads a chunk far larger than its parse pieces whole: rows and quoted line breaks across the cuts between pieces', async () => {
    let text = 'id,note\n';
    for (let i = 0; text.length < 300_000; i++) text += `${i},"line ${i}\nstill ${i}, Jörg ""${i}"""\n`;
    // One 300 KB chunk, as an upload's gathered blocks of a MiB are handed over.
    const t = await openDelimited(Readable.from([Buffer.from(text, 'utf8')]), null);
    const expected = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
    expect(await rowsOf(t.batches)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(5000);
  });

  it.each([[';'], ['\t'], ['|']])('detects the %j delimiter', async (d) => {
    const text = ['id', 'name', 'city'].join(d) + '\n' + ['1', 'Ann', 'Köln'].join(d) + '\n' + ['2', 'Bob', 'Paris'].join(d) + '\n';
    const t = await openDelimited(bytes(text, 5), null);
    expect(t.delimiter).toBe(d);
    expect((await rowsOf(t.batches))[1]).toEqual(['1', 'Ann', 'Köln']);
  });

  it.each([
    ['a title line', 'People export\n', ';'],
    ['a title with a comma, over a table of semicolons', 'Sales, Europe\nMade 2024-01-05\n', ';'],
    ['a title over a table of tabs, CRLF', 'People export\r\n', '\t'],
  ])("tells a two-column table's delimiter under %s", async (_case, title, d) => {
    const eol = title.endsWith('\r\n') ? '\r\n' : '\n';
    const table = [`E-mail${d}Years`, ...Array.from({ length: 60 }, (_, i) => `u${i}@x.org${d}${20 + i}`)].join(eol);
    const t = await openDelimited(bytes(title + table + eol, 7), null);
    expect(t.delimiter).toBe(d);
    const rows = await rowsOf(t.batches);
    expect(rows.at(-1)).toEqual(['u59@x.org', '79']);
  });

  it.each([
    ['titled', 'People export\nName\nAnn\nBob\n'],
    ['with a semicolon in its last line', 'Email\nann@x.com\nbob@x.com\ncat@x.com; dan@x.com\n'],
    ['with a bar in its last line', 'Name\nAlice\nBob\nSmith | John'],
    ['with a tab in two of its last lines', 'Notes\nfirst\nsecond\nthird\nsee\there\nand\there\n'],
  ])('keeps the first guess for a short file of one column, %s', async (_case, text) => {
    const t = await openDelimited(bytes(text, 3), null);
    expect(t.delimiter).toBe(',');
    expect((await rowsOf(t.batches)).every((row) => row.length === 1)).toBe(true);
  });

  it('lets go of the stream when the first bytes are refused: binary content, or an encoding nothing decodes', async () => {
    // More than the 64 KiB looked at, and never ended: only an explicit destroy closes it. The second file's
    // bytes are undefined in windows-1252 and its kin, and not letters in ibm866 (B0 draws a box there); its last 81
    // before each line end starts a two-byte character that a line end cannot end in Shift_JIS, GBK, Big5 and EUC-KR.
    for (const bytes of [
      Buffer.from('%PDF-1.7\n' + 'x'.repeat(100_000)),
      Buffer.from('a,b,\x81\x8d\x8f\xb0\x81\n'.repeat(10_000), 'latin1'),
    ]) {
      const input = new PassThrough();
      input.write(bytes);
      await expect(sniffDelimited(input, null)).rejects.toBeInstanceOf(SourceProblem);
      await new Promise((r) => setImmediate(r));
      expect(input.destroyed).toBe(true);
    }
  });

  it('uses a given delimiter and skips blank lines', async () => {
    const t = await openDelimited(Readable.from(['a\tb\n\n1\t2\n   \n']), '\t');
    expect(await rowsOf(t.batches)).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it.each([[false], [true]])(
    'skips rows of nothing but blanks and delimiters, quoted or not, as papaparse greedy did (already ingested: %j)',
    async (alreadyIngested) => {
      const text = 'a,b\n,\n" ",  \n"",""\n1,2\n"""",\n\t,\n x ,\n';
      const t = await openDelimited(Readable.from([text]), ',', { alreadyIngested });
      const greedy = Papa.parse<string[]>(text, { delimiter: ',', skipEmptyLines: 'greedy' }).data;
      expect(await rowsOf(t.batches)).toEqual(greedy);
      expect(greedy).toEqual([
        ['a', 'b'],
        ['1', '2'],
        ['"', ''],
        [' x ', ''],
      ]);
    },
  );

  it('streams many rows in batches without losing any', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `${i},row ${i}`).join('\n');
    const t = await openDelimited(bytes(lines, 4096), null);
    const batches: number[] = [];
    let last: string[] = [];
    for await (const b of t.batches) {
      batches.push(b.length);
      last = b[b.length - 1];
    }
    expect(batches.reduce((a, b) => a + b, 0)).toBe(5000);
    expect(batches.length).toBeGreaterThan(1);
    expect(last).toEqual(['4999', 'row 4999']);
  });

  it.each([[false], [true]])(
    'parses less than 64 KiB ahead of a consumer that stops taking rows, so rows in flight stay few (already ingested: %j)',
    async (alreadyIngested) => {
      // Rows of 101 bytes in 16 KiB chunks; the bytes pulled from the source, less those of the rows taken, were parsed or buffered ahead.
      const row = (i: number) => `${String(i).padStart(6, '0')},${'x'.repeat(92)}\n`;
      let pulled = 0;
      async function* source(): AsyncGenerator<Buffer> {
        let chunk = '';
        for (let i = 0; i < 30_000; i++) {
          chunk += row(i);
          if (chunk.length >= 16 * 1024 || i === 29_999) {
            pulled += chunk.length;
            yield Buffer.from(chunk);
            chunk = '';
          }
        }
      }
      const t = await openDelimited(Readable.from(source()), ',', { alreadyIngested, encoding: alreadyIngested ? 'utf-8' : undefined });
      const batches = t.batches[Symbol.asyncIterator]();
      let taken = 0;
      for (let k = 0; k < 6; k++) taken += (await batches.next()).value!.length;
      await new Promise((r) => setTimeout(r, 200));
      expect(taken).toBe(3000);
      // 59 KiB measured once settled (the rest of the piece being taken, one parsed piece queued, one buffered as text, the
      // source's chunk on its way); 75 KiB with four pieces queued, 123 KiB with 64 KiB pieces. Settled within a millisecond.
      expect(pulled - taken * row(0).length).toBeLessThan(64 * 1024);
      await batches.return!(undefined);
    },
  );

  it('reads an empty file as no rows', async () => {
    const t = await openDelimited(Readable.from([]), null);
    expect(await rowsOf(t.batches)).toEqual([]);
  });
});

describe('xlsx reader', () => {
  const workbook = async (build: (wb: ExcelJS.Workbook) => void): Promise<Readable> => {
    const wb = new ExcelJS.Workbook();
    build(wb);
    const buf = Buffer.from(await wb.xlsx.writeBuffer());
    const s = new PassThrough();
    s.end(buf);
    return s;
  };

  it('reads the first non-empty sheet: text keeps leading zeros, dates, numbers, formulas, rich text', async () => {
    const input = await workbook((wb) => {
      wb.addWorksheet('Empty');
      const ws = wb.addWorksheet('Data');
      ws.addRow(['zip', 'born', 'amount', 'total', 'note']);
      ws.addRow([
        '01234',
        new Date(Date.UTC(1990, 4, 17)),
        12.5,
        { formula: 'C2*2', result: 25 },
        { richText: [{ text: 'bo' }, { text: 'ld' }] },
      ]);
      ws.addRow([]);
      ws.addRow(['00007', new Date(Date.UTC(2020, 0, 2, 13, 45, 0)), 3, null, 'x']);
      wb.addWorksheet('Other').addRow(['ignored']);
    });
    const t = await openXlsx(input);
    expect(await rowsOf(t.batches)).toEqual([
      ['zip', 'born', 'amount', 'total', 'note'],
      ['01234', '1990-05-17', '12.5', '25', 'bold'],
      ['00007', '2020-01-02T13:45:00', '3', '', 'x'],
    ]);
  });

  it('fails on bytes that are not an XLSX package', async () => {
    const s = new PassThrough();
    s.end(Buffer.from('this is not a zip file at all'));
    await expect(openXlsx(s)).rejects.toMatchObject({ kind: 'contentMismatch' });
  });
});

describe('tableFormatOf', () => {
  it.each([
    ['a.CSV', { format: 'delimited', delimiter: null }],
    ['a.tsv', { format: 'delimited', delimiter: '\t' }],
    ['a.Txt', { format: 'delimited', delimiter: null }],
    ['a.XLSX', { format: 'xlsx', delimiter: null }],
    ['a.png', null],
  ])('%s', (name, expected) => expect(tableFormatOf(name)).toEqual(expected));
});
