import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { csvChunks, neutralizeFormula } from '../writers/output-writers';
import { openDelimited } from './delimited-reader';
import { DEFAULT_TABLE_LIMITS, SourceProblem, type TableLimits } from './source-problem';
import { detectEncoding } from './text-decoding';
import { openXlsx } from './xlsx-reader';

/**
 * Real-world and hostile delimited files, made here from their bytes (no binaries are
 * checked in). Each is fed in small chunks so every boundary case is exercised.
 */

/** A byte stream of `bytes` cut into `size`-byte chunks. */
const chunked = (bytes: Buffer, size = 7): Readable =>
  Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    })(),
    { objectMode: false },
  );

async function readAll(bytes: Buffer, options: { delimiter?: string | null; limits?: Partial<TableLimits>; chunk?: number } = {}) {
  const table = await openDelimited(chunked(bytes, options.chunk), options.delimiter ?? null, {
    limits: { ...DEFAULT_TABLE_LIMITS, ...options.limits },
  });
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return { rows, encoding: table.encoding, delimiter: table.delimiter };
}

const problemOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SourceProblem) return { kind: err.kind, message: err.message };
    throw err;
  }
  throw new Error('expected a SourceProblem');
};

describe('encodings', () => {
  const german = 'Name;Straße;Größe\nMüller;Hauptstraße;groß\n';
  const polish = 'Imię;Nazwisko;Miasto\nZażółć;gęślą;jaźń\nŁucja;Żak;Łódź\n';
  const russian = 'Имя,Город\nАнна,Москва\n';
  const chinese = '姓名,城市\n张三,北京\n李四,上海\n';

  it.each([
    ['UTF-8 without BOM', Buffer.from(russian, 'utf8'), 'utf-8', russian],
    ['UTF-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(russian, 'utf8')]), 'utf-8', russian],
    ['UTF-16 LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(russian, 'utf16le')]), 'utf-16le', russian],
    ['UTF-16 BE with BOM', iconv.encode(russian, 'utf-16be', { addBOM: true }), 'utf-16be', russian],
    ['UTF-16 LE without BOM (mostly ASCII)', Buffer.from('name,city\nAnn,Paris\n', 'utf16le'), 'utf-16le', 'name,city\nAnn,Paris\n'],
    ['UTF-16 LE without BOM (Cyrillic)', Buffer.from(russian, 'utf16le'), 'utf-16le', russian],
    ['UTF-16 BE without BOM (Chinese)', Buffer.from(chinese, 'utf16le').swap16(), 'utf-16be', chinese],
    ['Windows-1252 (German)', iconv.encode(german, 'windows-1252'), 'windows-1252', german],
    ['Windows-1250 (Polish)', iconv.encode(polish, 'windows-1250'), 'windows-1250', polish],
  ])('%s decodes correctly, even cut into 1-byte chunks', async (_name, bytes, encoding, text) => {
    const expected = text
      .trim()
      .split('\n')
      .map((l) => l.split(text.includes(';') ? ';' : ','));
    const read = await readAll(bytes, { chunk: 1 });
    expect(read.encoding).toBe(encoding);
    expect(read.rows).toEqual(expected);
  });

  it('fails on bytes that are not valid UTF-8 after a valid start, instead of inventing characters', async () => {
    const valid = Buffer.from(`a,b\n${'x,ü\n'.repeat(30_000)}`, 'utf8'); // past the 64 KiB detection sample
    const bytes = Buffer.concat([valid, Buffer.from([0x66, 0xfc, 0x72, 0x0a])]); // "für" in Latin-1
    expect(detectEncoding(valid.subarray(0, 65536))).toBe('utf-8');
    const problem = await problemOf(readAll(bytes, { chunk: 4096 }));
    expect(problem.kind).toBe('encodingInvalid');
    // The 0xFC of "für", exactly: its offset is the valid bytes and the "f".
    expect(problem.message).toContain(`not valid UTF-8 (at byte ${valid.length + 1},`);
  });

  it('fails on a byte a legacy code page does not define', async () => {
    const bytes = Buffer.concat([iconv.encode('Name;Größe\nA;', 'windows-1252'), Buffer.from([0x81]), Buffer.from('\n')]);
    expect((await problemOf(readAll(bytes, { chunk: 3 }))).kind).toBe('encodingInvalid');
  });
});

describe('dialects', () => {
  it.each([
    ['comma', ',', 'a,b\n1,2\n'],
    ['semicolon', ';', 'a;b\n1;2\n'],
    ['tab', '\t', 'a\tb\n1\t2\n'],
    ['pipe', '|', 'a|b\n1|2\n'],
  ])('detects a %s delimiter', async (_n, delimiter, text) => {
    const read = await readAll(Buffer.from(text));
    expect(read.delimiter).toBe(delimiter);
    expect(read.rows).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['lone CR', '\r'],
  ])('reads %s line endings', async (_n, eol) => {
    const read = await readAll(Buffer.from(['a,b', '1,2', '3,4'].join(eol) + eol), { chunk: 3 });
    expect(read.rows).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
  });

  it('keeps delimiters, doubled quotes and newlines inside quoted fields', async () => {
    const read = await readAll(Buffer.from('a,b\r\n"x, y","he said ""hi""\r\nline 2"\r\nplain,"end"\r\n'), { chunk: 2 });
    expect(read.rows).toEqual([
      ['a', 'b'],
      ['x, y', 'he said "hi"\r\nline 2'],
      ['plain', 'end'],
    ]);
  });

  it('fails clearly on an unterminated quote instead of swallowing the rest of the file', async () => {
    const problem = await problemOf(readAll(Buffer.from('a,b\n1,"open\n2,3\n4,5\n')));
    expect(problem).toEqual({ kind: 'unterminatedQuote', message: 'The quoted field starting on line 2 is never closed.' });
  });

  it('fails clearly on a closing quote followed by other text, instead of reading the rest of the file as one value', async () => {
    // Papaparse does not take `"5"` as closed when text follows it: every row after it became one cell.
    const problem = await problemOf(readAll(Buffer.from('a,b,c\n1,2,3\n4,"5"x,6\n7,8,9\n10,11,12\n')));
    expect(problem.kind).toBe('malformedQuote');
    expect(problem.message).toContain('On line 3');
    // So does a big file, where the swallowed rest once failed as a field too large, naming the wrong cause.
    const big = Buffer.from(`a,b,c\n4,"5"x,6\n${'7,8,9\n'.repeat(100_000)}`);
    expect((await problemOf(readAll(big, { chunk: 65_536 }))).kind).toBe('malformedQuote');
  });

  it('stops an unterminated quote at the row limit, before the rest of a big file is buffered', async () => {
    const bytes = Buffer.from(`a,b\n1,"open\n${'2,3\n'.repeat(50_000)}`);
    const problem = await problemOf(readAll(bytes, { limits: { maxRowChars: 10_000 }, chunk: 4096 }));
    expect(problem.kind).toBe('unterminatedQuote');
    expect(problem.message).toContain('line 2');
  });
});

describe('limits, each with its own code', () => {
  it.each([
    ['a row longer than maxRowChars', `a,b\n1,${'x'.repeat(5000)}\n`, { maxRowChars: 1000 }, 'rowTooLarge'],
    ['a field longer than maxFieldChars', `a,b\n1,${'x'.repeat(500)}\n`, { maxFieldChars: 100 }, 'fieldTooLarge'],
    ['more columns than maxColumns', `${Array.from({ length: 20 }, (_, i) => `c${i}`).join(',')}\n`, { maxColumns: 10 }, 'tooManyColumns'],
    ['more rows than maxRows', 'a\n1\n2\n3\n4\n', { maxRows: 3 }, 'tooManyRows'],
  ] as const)('refuses %s', async (_n, text, limits, kind) => {
    expect((await problemOf(readAll(Buffer.from(text), { limits }))).kind).toBe(kind);
  });

  it('counts columns up to the last value: empty cells past the limit are no columns (a used range wider than the data)', async () => {
    // A sheet saved as CSV from a used range that reaches far past its data: every line ends with its delimiters.
    const tail = ','.repeat(40);
    const read = await readAll(Buffer.from(`a,b,c${tail}\n1,2,3${tail}\n4, ,6${tail} \n`), { limits: { maxColumns: 10 } });
    expect(read.rows.map((row) => row.slice(0, 3))).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
      ['4', ' ', '6'],
    ]);
    // Up to a sheet's 16,384 columns (XFD): a row with more cells is refused, empty or not (each is a string in every read).
    const endless = `a,b,c\n1,2,3${','.repeat(17_000)}\n`;
    expect(await problemOf(readAll(Buffer.from(endless)))).toEqual({
      kind: 'tooManyColumns',
      message: 'Row 2 has 17003 columns; at most 1000 are allowed.',
    });
    expect((await readAll(Buffer.from(`a,b,c\n1,2,3${','.repeat(16_000)}\n`))).rows[1]).toHaveLength(16_003);
    // A value past the limit, however far, is still refused, and the message counts the columns up to it.
    const far = `a,b,c\n1,2,3${','.repeat(20)}x${tail}\n`;
    expect(await problemOf(readAll(Buffer.from(far), { limits: { maxColumns: 10 } }))).toEqual({
      kind: 'tooManyColumns',
      message: 'Row 2 has 23 columns; at most 10 are allowed.',
    });
  });

  it('refuses a single 60 MB field while streaming, at the row limit', async () => {
    const big = Buffer.alloc(60 * 1024 * 1024, 0x61);
    big.write('a,b\n1,"', 0);
    const problem = await problemOf(readAll(big, { chunk: 64 * 1024 }));
    expect(['rowTooLarge', 'unterminatedQuote']).toContain(problem.kind);
  });
});

describe('content that is not what the name says', () => {
  const cases: [string, Buffer, RegExp][] = [
    ['a ZIP archive', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]), /ZIP/],
    ['a PDF', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), /PDF/],
    ['a Windows executable', Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), Buffer.alloc(64)]), /EXE|binary/],
    ['a PNG image', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]), /PNG/],
    ['an HTML page', Buffer.from('  <!DOCTYPE html><html><body>Sign in</body></html>'), /HTML/],
    [
      'binary data',
      Buffer.from([0x01, 0x02, 0x00, 0x00, 0x7f, 0x45, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x00, 0x99, 0x00, 0x00, 0x11]),
      /binary|ELF/,
    ],
  ];
  it.each(cases)('a .csv that is %s fails before parsing', async (_n, bytes, says) => {
    const problem = await problemOf(readAll(bytes));
    expect(problem.kind).toBe('contentMismatch');
    expect(problem.message).toMatch(says);
  });

  it('a text file starting with letters that other formats use (BM…, ID3…, MZ…) is still text', async () => {
    for (const header of ['BMI,Weight', 'ID3,Tag', 'MZone,Region']) {
      expect((await readAll(Buffer.from(`${header}\n1,2\n`))).rows[0]).toEqual(header.split(','));
    }
  });

  const cfb = (extra = Buffer.alloc(0)) =>
    Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504), extra]);
  it.each([
    ['a legacy .xls workbook', cfb(), /legacy Excel workbook \(\.xls\)/],
    ['an encrypted workbook', cfb(Buffer.from('EncryptedPackage', 'utf16le')), /password-protected/],
  ])('an .xlsx that is %s is named unsupported', async (_n, bytes, says) => {
    const problem = await problemOf(openXlsx(chunked(bytes, 100)));
    expect(problem.kind).toBe('unsupportedFormat');
    expect(problem.message).toMatch(says);
  });

  it('an .xlsx that is a PDF is a mismatch', async () => {
    expect(await problemOf(openXlsx(chunked(Buffer.from('%PDF-1.4 ...'))))).toMatchObject({
      kind: 'contentMismatch',
      message: expect.stringContaining('PDF'),
    });
  });
});

describe('CSV output and spreadsheet formulas (OWASP CSV injection)', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+SUM(A1)', "'+SUM(A1)"],
    ['-2+3', "'-2+3"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['-5', '-5'],
    ['+3.25', '+3.25'],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
  ])('%j is written as %j', (value, written) => expect(neutralizeFormula(value)).toBe(written));

  it('neutralises downloaded CSV by default, and can be turned off for internal files', async () => {
    const write = async (options?: { neutralizeFormulas: boolean }) => {
      let out = '';
      for await (const c of csvChunks(
        ['f'],
        (async function* () {
          yield [{ f: '=HYPERLINK("http://x")' }];
        })(),
        options,
      ))
        out += c;
      return out;
    };
    expect(await write()).toBe('f\r\n"\'=HYPERLINK(""http://x"")"\r\n');
    expect(await write({ neutralizeFormulas: false })).toBe('f\r\n"=HYPERLINK(""http://x"")"\r\n');
  });
});
