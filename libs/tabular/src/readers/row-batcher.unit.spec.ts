import fc from 'fast-check';
import { BATCH_CELLS, RowBatcher } from './row-batcher';
import { BATCH_ROWS } from './table-reader';

/** Every row once, in order, in batches that are full (by rows or cells) except the last. */
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
const rowOf = (width: number) => Array.from({ length: width }, (_, i) => `c${i}`);

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

  it('any widths: the rows come out whole and in order; each batch but the last is full, and was not full before its last row', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 2_000 }), (widths) => {
        const rows = widths.map(rowOf);
        const batches = batchesOf(rows);
        expect(batches.flat()).toEqual(rows);
        for (const batch of batches.slice(0, -1)) {
          expect(batch.length >= BATCH_ROWS || cellsIn(batch) >= BATCH_CELLS).toBe(true);
          expect(batch.length - 1 < BATCH_ROWS && cellsIn(batch.slice(0, -1)) < BATCH_CELLS).toBe(true);
        }
        expect(batches.every((b) => b.length > 0)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
