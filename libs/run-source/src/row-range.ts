import type { BlobStore } from '@app/blob-storage';
import { rowIndexKeyOf, type RunState } from '@app/domain';
import { claimThrough, MOST_ROWS_SHARED, type RangeEnd } from './range-end';

/** Data rows `fromRow` to `toRow` (both included, from 1; null: to the end) of a run's file. */
export interface RowRange {
  fromRow: number;
  toRow: number | null;
  /** Set when another thread may end the range earlier while it is read (range-end.ts): made for the same rows. */
  end?: RangeEnd;
}

export const WHOLE_FILE: RowRange = { fromRow: 1, toRow: null };

/** Below this many rows one thread reads the whole file: a split saves less than it costs. */
const SPLIT_FROM_ROWS = 50_000;

/**
 * Only the rows of a range, from batches that start at its first row. A range with a shared
 * `end` has each batch's rows claimed before they are handed on, and stops at a cut.
 */
export async function* within<T>(batches: AsyncGenerator<T[]>, range: RowRange): AsyncGenerator<T[]> {
  const last = range.toRow ?? Infinity;
  let next = range.fromRow;
  try {
    for await (const batch of batches) {
      if (batch.length === 0) {
        yield batch;
        continue;
      }
      const wanted = Math.min(last, next + batch.length - 1);
      const through = range.end ? claimThrough(range.end, wanted) : wanted;
      if (through < next) return;
      yield through - next + 1 === batch.length ? batch : batch.slice(0, through - next + 1);
      // Cut, or at the range's last row: the next batch is not read at all.
      if (through < wanted || through === last) return;
      next = through + 1;
    }
  } finally {
    await batches.return(undefined);
  }
}

/**
 * How a whole-file pass is shared among `threads` running threads: two halves for a big
 * delimited file with a row index (each thread starts its read at the index entry before its
 * half), else the whole file on one thread. A workbook has no row index; without a second
 * thread (none running, or the tasks on the event loop) halves would only take turns.
 */
export async function halvesOf(blobs: BlobStore, run: RunState, threads: number): Promise<RowRange[]> {
  const total = run.total_rows ?? 0;
  if (threads < 2 || run.source_format !== 'delimited' || total < SPLIT_FROM_ROWS || total > MOST_ROWS_SHARED) return [WHOLE_FILE];
  if (!(await blobs.stat(rowIndexKeyOf(run.rows_key)))) return [WHOLE_FILE];
  const half = Math.ceil(total / 2);
  return [
    { fromRow: 1, toRow: half },
    { fromRow: half + 1, toRow: null },
  ];
}

/** The number of rows of a range, when the file's total is known. */
export function rowsIn(range: RowRange, totalRows: number | null | undefined): number {
  const end = range.toRow ?? totalRows ?? 0;
  return Math.max(0, end - range.fromRow + 1);
}
