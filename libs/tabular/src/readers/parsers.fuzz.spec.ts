import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { openDelimited } from './delimited-reader';
import { DEFAULT_TABLE_LIMITS } from './source-problem';
import { checkContent } from './content-sniffing';
import { decodeText, detectEncoding } from './text-decoding';
import { openXlsx } from './xlsx-reader';

/**
 * Property-based tests: random and mutated bytes into every reader and decoder. Each
 * must either give rows or fail with an Error, within a time bound, and never throw
 * outside the promise (an uncaught exception would take the process down).
 */

const TIME_BOUND_MS = 5000;

const within = <T>(promise: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<T>((_, reject) => {
    timer = setTimeout(() => reject(new Error('hang: no answer within the time bound')), TIME_BOUND_MS);
  });
  // Cleared once answered: a pending 5 s timer per run kept Jest from exiting.
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
};

const chunks = (bytes: Uint8Array, size: number) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += size) yield Buffer.from(bytes.subarray(i, i + size));
    })(),
    { objectMode: false },
  );

/** Reads everything; resolves to 'rows' or 'refused' (an Error); anything else fails the property. */
async function outcome(open: () => Promise<{ batches: AsyncIterable<string[][]> }>): Promise<'rows' | 'refused'> {
  try {
    const table = await open();
    for await (const batch of table.batches) {
      for (const row of batch) if (!Array.isArray(row) || row.some((c) => typeof c !== 'string')) throw new Error('a row that is not text');
    }
    return 'rows';
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('hang')) throw err;
    if (err instanceof Error && err.message === 'a row that is not text') throw err;
    return 'refused';
  }
}

const csvLike = fc
  .array(fc.array(fc.oneof(fc.string(), fc.constantFrom('"', '""', ',', ';', '\n', '\r\n', '\r', 'ü', '€', '\uFEFF')), { maxLength: 6 }), {
    maxLength: 30,
  })
  .map((rows) => rows.map((r) => r.join(',')).join('\n'));

describe('fuzzing the readers', () => {
  it('delimited reader: random bytes, any chunking', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), fc.integer({ min: 1, max: 300 }), async (bytes, size) => {
        await within(outcome(() => openDelimited(chunks(bytes, size), null)));
      }),
      { numRuns: 300 },
    );
  });

  it('delimited reader: CSV-shaped text, mutated, in any encoding guess', async () => {
    await fc.assert(
      fc.asyncProperty(
        csvLike,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 5 }),
        fc.integer({ min: 1, max: 64 }),
        async (text, mutations, size) => {
          const bytes = Buffer.from(text, 'utf8');
          for (const [at, value] of mutations) if (bytes.length) bytes[at % bytes.length] = value;
          await within(
            outcome(() =>
              openDelimited(chunks(bytes, size), null, {
                limits: { ...DEFAULT_TABLE_LIMITS, maxRowChars: 500, maxFieldChars: 200, maxColumns: 20, maxRows: 100 },
              }),
            ),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decoders and sniffing: random bytes never throw anything but Errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 1024 }),
        fc.constantFrom('utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'windows-1250'),
        async (bytes, encoding) => {
          const buf = Buffer.from(bytes);
          for (const fn of [() => detectEncoding(buf), () => checkContent(buf, 'delimited'), () => checkContent(buf, 'xlsx')]) {
            try {
              fn();
            } catch (err) {
              expect(err).toBeInstanceOf(Error);
            }
          }
          try {
            for await (const piece of decodeText(chunks(buf, 5), encoding)) expect(typeof piece).toBe('string');
          } catch (err) {
            expect(err).toBeInstanceOf(Error);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('xlsx reader: a real workbook with bytes mutated, truncated, or random', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('People');
    ws.addRow(['name', 'email', 'born']);
    for (let i = 0; i < 30; i++) ws.addRow([`n${i}`, `u${i}@example.com`, new Date(Date.UTC(1990, 0, i + 1))]);
    const valid = Buffer.from(await wb.xlsx.writeBuffer());
    expect(await outcome(() => openXlsx(chunks(valid, 1000)))).toBe('rows');

    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.integer({ min: 16, max: 4096 }),
        async (mutations, cut, size) => {
          const bytes = Buffer.from(valid);
          for (const [at, value] of mutations) bytes[at % bytes.length] = value;
          const input = cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length);
          await within(outcome(() => openXlsx(chunks(input, size), undefined, 500)));
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});
