import fc from 'fast-check';
import iconv from 'iconv-lite';
import { Readable } from 'node:stream';
import { openDelimited } from './delimited-reader';
import { NotPlainDelimited, scanDelimited } from './delimited-scan';
import { scannedRows } from './scanned-rows';
import { DEFAULT_TABLE_LIMITS } from './source-problem';
import { cutInto, delimitedToken } from './testing/random-delimited';

/*
 * A later read of an ingested file by the row scanner (scannedRows) must yield exactly the rows papaparse yields
 * (openDelimited, as every later read used it), with only the columns asked for filled in, or say the file is not
 * plain (the caller then reads it with papaparse from where the scanner stopped: libs/run-source's mapped-rows.ts).
 */

async function papaparseRows(bytes: Buffer[], delimiter: string, encoding: string, resumeWithLinebreak?: string): Promise<string[][]> {
  const table = await openDelimited(Readable.from(bytes), delimiter, { alreadyIngested: true, encoding, resumeWithLinebreak });
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
}

async function scanned(
  bytes: Buffer[],
  delimiter: string,
  encoding: string,
  options: { columns?: boolean[]; resumeWithLinebreak?: string } = {},
): Promise<string[][] | 'not plain'> {
  const rows: string[][] = [];
  try {
    for await (const batch of scannedRows(Readable.from(bytes), { delimiter, encoding, limits: DEFAULT_TABLE_LIMITS, ...options }))
      rows.push(...batch);
  } catch (err) {
    if (err instanceof NotPlainDelimited) return 'not plain';
    throw err;
  }
  return rows;
}

/** The rows with only `columns` kept (the others empty), as a read of those columns gives them. */
const onlyColumns = (rows: string[][], columns: boolean[]): string[][] =>
  rows.map((row) => row.map((field, i) => (columns[i] ? field : '')));

// The tokens of ingestion's scan spec, and a byte-order mark inside the text.
const token = delimitedToken('\ufeff');

describe('a later read of an ingested delimited file by the row scanner', () => {
  it("yields papaparse's rows, every column or the ones asked for, or says the file is not plain", async () => {
    let plain = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(token, { maxLength: 120 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.array(fc.boolean(), { maxLength: 6 }),
        async (tokens, eol, cuts, columns) => {
          const bytes = cutInto(Buffer.from(`h1,h2,h3${eol}${tokens.join('')}`, 'utf8'), cuts);
          const expected = await papaparseRows(bytes, ',', 'utf-8');
          const all = await scanned(bytes, ',', 'utf-8');
          const some = await scanned(bytes, ',', 'utf-8', { columns });
          if (all === 'not plain') return;
          plain++;
          expect(all).toEqual(expected);
          // A projection may refuse where the whole read does not (a mark at the first row's start it does not read): never the other way.
          if (some !== 'not plain') expect(some).toEqual(onlyColumns(expected, columns));
        },
      ),
      { numRuns: 1000 },
    );
    // Not vacuous: most of the drawn files are plain.
    expect(plain).toBeGreaterThan(250);
    // Each read yields to the event loop between pieces, and in the whole suite's one process a turn of it costs more.
  }, 120_000);

  it('yields the rows after any row index entry, as a read of papaparse from it does, in a code page as in UTF-8', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('\n', '\r\n'),
        fc.constantFrom('utf-8', 'windows-1252'),
        fc.nat(7),
        async (eol, encoding, blankEvery) => {
          const rows = Array.from({ length: 20_000 }, (_, i) =>
            [String(i), i % 3 === 0 ? `"Müller, ""${i}""${eol}x"` : `plain ${i}`, i % 5 === 0 ? '' : 'Forlì'].join(','),
          );
          const body = rows.map((r, i) => r + eol + (blankEvery > 0 && i % blankEvery === 0 ? ` ,${eol}` : '')).join('');
          const bytes = iconv.encode('id,name,x' + eol + body, encoding);
          const scan = await scanDelimited(Readable.from([bytes]), ',', { headRows: 20, encoding });
          const entries = scan.rowIndex!.entries;
          expect(entries.length).toBeGreaterThan(5);
          const linebreak = scan.rowIndex!.linebreak;
          expect(await scanned([bytes], ',', encoding)).toEqual(await papaparseRows([bytes], ',', encoding));
          for (const [, byte] of [entries[0], entries[entries.length >> 1], entries[entries.length - 1]]) {
            const rest = [bytes.subarray(byte)];
            const expected = await papaparseRows(rest, ',', encoding, linebreak);
            expect(await scanned(rest, ',', encoding, { resumeWithLinebreak: linebreak })).toEqual(expected);
            expect(await scanned(rest, ',', encoding, { resumeWithLinebreak: linebreak, columns: [false, true] })).toEqual(
              onlyColumns(expected, [false, true]),
            );
          }
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);

  it('says a file is not plain where papaparse reads by rules of its own: a quote then text, a byte-order mark after empty lines', async () => {
    expect(await scanned([Buffer.from('a,b\n1,"5"x\n', 'utf8')], ',', 'utf-8')).toBe('not plain');
    const markAfterEmptyLine = Buffer.concat([Buffer.from('\n'), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,b\n1,2\n')]);
    expect(await scanned([markAfterEmptyLine], ',', 'utf-8')).toBe('not plain');
    // papaparse strips that mark from its first row: the scanner, which would not, hands the file back.
    expect((await papaparseRows([markAfterEmptyLine], ',', 'utf-8'))[0]).toEqual(['a', 'b']);
  });
});
