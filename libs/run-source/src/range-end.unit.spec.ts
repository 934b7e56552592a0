import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import * as ts from 'typescript';
import { claimThrough, cutAfter, newRangeEnd, rangeNow } from './range-end';
import { within } from './row-range';

describe('a range end shared by a reader and a thread that may cut it', () => {
  it('hands the reader every row it claims up to the range end, and no further', () => {
    const end = newRangeEnd(101, 300);
    expect(rangeNow(end)).toEqual({ claimed: 100, lastRow: 300 });
    expect(claimThrough(end, 200)).toBe(200);
    expect(claimThrough(end, 400)).toBe(300);
    expect(rangeNow(end)).toEqual({ claimed: 300, lastRow: 300 });
  });

  it('keeps a range to the end of the file open-ended', () => {
    const end = newRangeEnd(1, null);
    expect(claimThrough(end, 5_000_000)).toBe(5_000_000);
    expect(rangeNow(end)).toEqual({ claimed: 5_000_000, lastRow: null });
  });

  it('cuts only after the claimed rows, as often as asked, and the reader stops there', () => {
    const end = newRangeEnd(1, null);
    claimThrough(end, 500);
    expect(cutAfter(end, ({ claimed, lastRow }) => (expect([claimed, lastRow]).toEqual([500, null]), 2_000))).toBe(2_000);
    expect(claimThrough(end, 1_000)).toBe(1_000);
    expect(cutAfter(end, () => 1_500)).toBe(1_500);
    expect(claimThrough(end, 2_000)).toBe(1_500);
    expect(rangeNow(end)).toEqual({ claimed: 1_500, lastRow: 1_500 });
    expect(cutAfter(end, () => null)).toBeNull();
  });

  it('refuses a cut before a claimed row or at the range end (those rows would be read twice or not at all)', () => {
    const end = newRangeEnd(1, 1_000);
    claimThrough(end, 500);
    expect(() => cutAfter(end, () => 499)).toThrow(RangeError);
    expect(() => cutAfter(end, () => 1_000)).toThrow(RangeError);
    expect(rangeNow(end)).toEqual({ claimed: 500, lastRow: 1_000 });
    expect(cutAfter(end, () => 500)).toBe(500);
    expect(claimThrough(end, 600)).toBe(500);
  });

  it('gives every row to exactly one of a reader thread and a cutting thread racing over the same memory', async () => {
    // The reader claims rows one at a time in a worker thread while this thread cuts its range
    // again and again just past what it has claimed; whatever the interleaving, the rows the
    // reader read and the rows cut off make up the range once each.
    const rows = 2_000_000;
    const end = newRangeEnd(1, rows);
    const reader = new Worker(
      // This module's own code, compiled as ts-jest would, and a loop that claims row after row.
      `${ts.transpileModule(readFileSync(join(__dirname, 'range-end.ts'), 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText}
       const { workerData, parentPort } = require('node:worker_threads');
       let read = 0;
       for (let row = 1; claimThrough(workerData, row) === row; row++) read = row;
       parentPort.postMessage(read);`,
      { eval: true, workerData: end },
    );
    const read = new Promise<number>((resolve, reject) => reader.once('message', resolve).once('error', reject));
    const cuts: number[] = [];
    let lastCut = rows;
    while (cuts.length < 200) {
      const cut = cutAfter(end, ({ claimed, lastRow }) => (claimed + 1 < (lastRow ?? rows) ? claimed + 1 : null));
      if (cut === null) break;
      expect(cut).toBeLessThan(lastCut);
      lastCut = cut;
      cuts.push(cut);
      await new Promise((r) => setImmediate(r));
    }
    // The reader read exactly the rows up to the last cut.
    expect(await read).toBe(lastCut);
    expect(cuts.length).toBeGreaterThan(0);
    await reader.terminate();
  });
});

describe('within (the rows of a range)', () => {
  async function* batchesOf(total: number, size: number, log: string[]): AsyncGenerator<number[]> {
    try {
      for (let first = 1; first <= total; first += size) {
        log.push(`batch from ${first}`);
        yield Array.from({ length: Math.min(size, total - first + 1) }, (_, i) => first + i);
      }
    } finally {
      log.push('closed');
    }
  }
  const rowsOf = async (batches: AsyncGenerator<number[]>) => {
    const rows: number[] = [];
    for await (const batch of batches) rows.push(...batch);
    return rows;
  };

  it('stops at the range last row without reading another batch', async () => {
    const log: string[] = [];
    expect(await rowsOf(within(batchesOf(100, 10, log), { fromRow: 1, toRow: 25 }))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(log).toEqual(['batch from 1', 'batch from 11', 'batch from 21', 'closed']);
  });

  it('stops where another thread cut a shared range, claiming each batch before handing it on', async () => {
    const log: string[] = [];
    const end = newRangeEnd(1, null);
    const rows: number[] = [];
    for await (const batch of within(batchesOf(100, 10, log), { fromRow: 1, toRow: null, end })) {
      rows.push(...batch);
      // While rows 1-10 are being used, they are claimed: a cut can come no earlier.
      if (rows.length === 10) {
        expect(rangeNow(end).claimed).toBe(10);
        cutAfter(end, () => 34);
      }
    }
    expect(rows).toEqual(Array.from({ length: 34 }, (_, i) => i + 1));
    expect(log).toEqual(['batch from 1', 'batch from 11', 'batch from 21', 'batch from 31', 'closed']);
  });

  it('reads nothing when the range was cut before its first row', async () => {
    const log: string[] = [];
    const end = newRangeEnd(1, null);
    cutAfter(end, () => 0);
    expect(await rowsOf(within(batchesOf(100, 10, log), { fromRow: 1, toRow: null, end }))).toEqual([]);
  });
});
