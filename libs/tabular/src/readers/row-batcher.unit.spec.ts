import fc from 'fast-check';
import { BATCH_CELLS, BATCH_CHARS, RowBatcher } from './row-batcher';
import { BATCH_ROWS } from './table-reader';

/** Every row once, in order, in batches that are full (by rows, cells or characters) except the last. */
function batchesOf(rows: string[][]): string[][][] {
  const batcher = new RowBatcher();
  const batches: string[][][] = [];
  for (const row of rows) {
    const full = batcher.add(row);
    if (full) batches.push(full);
  }
  const last = batcher.take();
  if (last.length > 0) batches.push(last);
  return batches;
}

const cellsIn = (batch: string[][]) => batch.reduce((n, row) => n + row.length, 0);
const charsIn = (batch: string[][]) => batch.reduce((n, row) => n + row.reduce((m, cell) => m + cell.length, 0), 0);
const rowOf = (width: number) => Array.from({ length: width }, (_, i) => `c${i}`);
/** A row of `width` cells of `chars` characters each. */
const longRow = (width: number, chars: number) => Array.from({ length: width }, (_, i) => String(i).padEnd(chars, 'x'));

describe('RowBatcher', () => {
  it('narrow rows: batches of BATCH_ROWS rows', () => {
    const batches = batchesOf(Array.from({ length: 1_234 }, () => rowOf(6)));
    expect(batches.map((b) => b.length)).toEqual([BATCH_ROWS, BATCH_ROWS, 234]);
  });

  it('wide rows: a batch ends once it holds BATCH_CELLS cells', () => {
    const batches = batchesOf(Array.from({ length: 400 }, () => rowOf(24)));
    expect(batches.map((b) => b.length)).toEqual([125, 125, 125, 25]);
    expect(cellsIn(batches[0])).toBe(BATCH_CELLS);
  });

  it('a row wider than BATCH_CELLS ends the batch it joins, never split', () => {
    const batches = batchesOf([rowOf(3), rowOf(BATCH_CELLS + 5), rowOf(3)]);
    expect(batches.map((b) => b.map((r) => r.length))).toEqual([[3, BATCH_CELLS + 5], [3]]);
  });

  it('long rows: a batch ends once its cells hold BATCH_CHARS characters (500 rows of 1 MB were a batch of 500 MB)', () => {
    // Rows of 1,000,000 characters, the longest MAX_ROW_CHARS allows by default: two a batch.
    const batches = batchesOf(Array.from({ length: 7 }, () => longRow(4, 250_000)));
    expect(batches.map((b) => b.length)).toEqual([2, 2, 2, 1]);
    expect(charsIn(batches[0])).toBeGreaterThanOrEqual(BATCH_CHARS);
    expect(charsIn(batches[0].slice(0, -1))).toBeLessThan(BATCH_CHARS);
    // One row longer than the bound is a batch of its own, whole.
    expect(batchesOf([rowOf(2), longRow(1, BATCH_CHARS + 1), rowOf(2)]).map((b) => b.length)).toEqual([2, 1]);
  });

  it('any widths: the rows come out whole and in order; each batch but the last is full, and was not full before its last row', () => {
    // Some rows long: up to 8 cells of up to 200,000 characters.
    const rowArb = fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 2, max: 200_000 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 2_000 }), (shapes) => {
        const rows = shapes.map(([width, chars, long]) => (long && width > 0 ? longRow(Math.min(width, 8), chars) : rowOf(width)));
        const batches = batchesOf(rows);
        expect(batches.flat()).toEqual(rows);
        for (const batch of batches.slice(0, -1)) {
          expect(batch.length >= BATCH_ROWS || cellsIn(batch) >= BATCH_CELLS || charsIn(batch) >= BATCH_CHARS).toBe(true);
          const before = batch.slice(0, -1);
          expect(before.length < BATCH_ROWS && cellsIn(before) < BATCH_CELLS && charsIn(before) < BATCH_CHARS).toBe(true);
        }
        expect(batches.every((b) => b.length > 0)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
