import { claimThrough, type RowRange } from '@app/run-source';
import { shareRowsOut } from './rows-shared-out';
import * as policy from './where-to-cut';

/** A task that claims and "reads" its rows in batches of 1,000, `msPerBatch` each, as a reader in a thread does (row-range.ts). */
function reader(total: number, msPerBatch: (range: RowRange) => number, read: Map<number, number[]>) {
  return async (range: RowRange, signal: AbortSignal, onRows: (n: number) => unknown): Promise<number> => {
    const rows: number[] = [];
    read.set(range.fromRow, rows);
    for (let next = range.fromRow; next <= (range.toRow ?? total);) {
      signal.throwIfAborted();
      const through = claimThrough(range.end!, Math.min(next + 999, range.toRow ?? total));
      if (through < next) break;
      for (let row = next; row <= through; row++) rows.push(row);
      await onRows(rows.length);
      next = through + 1;
      await new Promise((r) => setTimeout(r, msPerBatch(range)));
    }
    return rows.length;
  };
}

/** A task that ends only when its signal aborts, and rejects then. */
const waiting = (signal: AbortSignal) =>
  new Promise<number>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

/** The same, taking 20 ms to settle once aborted (as a thread being replaced); `settled` says when it has. */
function slowToStop(signal: AbortSignal, settled: { done: boolean }): Promise<number> {
  return waiting(signal).catch(async (err: Error) => {
    await new Promise((r) => setTimeout(r, 20));
    settled.done = true;
    throw err;
  });
}

describe('shareRowsOut (ranges of rows on threads, the first to end taking the last rows of another)', () => {
  it('gives each range to a task at once and answers their results in row order', async () => {
    const read = new Map<number, number[]>();
    const done = await shareRowsOut(
      [
        { fromRow: 1, toRow: 3_000 },
        { fromRow: 3_001, toRow: null },
      ],
      6_000,
      reader(6_000, () => 0, read),
    );
    expect(done).toEqual([
      { range: { fromRow: 1, toRow: 3_000 }, result: 3_000 },
      { range: { fromRow: 3_001, toRow: null }, result: 3_000 },
    ]);
  });

  it('has a free thread take the last rows of a slower range, until the rest is not worth a new share', async () => {
    // The second half's task takes 20 ms per 1,000 rows, any other 2 ms: the first half ends
    // early, then takes the last rows of the second, and so on while that is worth it.
    const total = 100_000;
    const read = new Map<number, number[]>();
    const heard: number[] = [];
    const done = await shareRowsOut(
      [
        { fromRow: 1, toRow: 50_000 },
        { fromRow: 50_001, toRow: null },
      ],
      total,
      reader(total, (range) => (range.fromRow === 50_001 ? 20 : 2), read),
      { onRows: (n) => heard.push(n) },
    );
    expect(done.length).toBeGreaterThan(2);
    // Every row read once, in the answers' order; each answer's range is what its task read.
    expect(done.flatMap((d) => read.get(d.range.fromRow)!)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    for (const { range, result } of done) expect(result).toBe((range.toRow ?? total) - range.fromRow + 1);
    expect(done.find((d) => d.range.fromRow === 50_001)!.result).toBeLessThan(total / 2);
    expect(heard.at(-1)).toBe(total);
    expect(heard).toEqual([...heard].sort((a, b) => a - b));
  });

  it('aborts the others when one fails, waits for them all, and throws that failure', async () => {
    const settled = { done: false };
    const run = shareRowsOut(
      [
        { fromRow: 1, toRow: 10 },
        { fromRow: 11, toRow: null },
      ],
      20,
      (range, signal) => (range.fromRow === 11 ? Promise.reject(new Error('disk full')) : slowToStop(signal, settled)),
    );
    await expect(run).rejects.toThrow('disk full');
    expect(settled.done).toBe(true);
  });

  it('aborts them all when the outer signal does', async () => {
    const outer = new AbortController();
    const run = shareRowsOut(
      [
        { fromRow: 1, toRow: 10 },
        { fromRow: 11, toRow: null },
      ],
      20,
      (_range, signal) => waiting(signal),
      {
        signal: outer.signal,
      },
    );
    outer.abort();
    await expect(run).rejects.toThrow('aborted');
  });

  it('throws when the outer signal aborted after every task had answered', async () => {
    const outer = new AbortController();
    const run = shareRowsOut(
      [{ fromRow: 1, toRow: 10 }],
      10,
      async () => {
        outer.abort(new Error('superseded'));
        return 1;
      },
      { signal: outer.signal },
    );
    await expect(run).rejects.toThrow('superseded');
  });

  it('fails as a task failure does when cutting a share throws: the others aborted and waited for', async () => {
    // A policy that names a row before the last one claimed: the cut refuses it (range-end.ts).
    const bad = jest.spyOn(policy, 'whereToCut').mockImplementation(({ claimed }) => claimed - 1);
    try {
      const settled = { done: false };
      const run = shareRowsOut(
        [
          { fromRow: 1, toRow: 10 },
          { fromRow: 11, toRow: null },
        ],
        20,
        (range, signal) => (range.fromRow === 1 ? Promise.resolve(1) : slowToStop(signal, settled)),
      );
      await expect(run).rejects.toThrow(RangeError);
      expect(bad).toHaveBeenCalled();
      expect(settled.done).toBe(true);
    } finally {
      bad.mockRestore();
    }
  });
});
