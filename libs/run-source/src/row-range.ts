import type { BlobStore } from '@app/blob-storage';
import { rowIndexKeyOf, type RunState } from '@app/domain';

/** Data rows `fromRow` to `toRow` (both included, from 1; null: to the end) of a run's file. */
export interface RowRange {
  fromRow: number;
  toRow: number | null;
}

export const WHOLE_FILE: RowRange = { fromRow: 1, toRow: null };

/** Below this many rows one thread reads the whole file: a split saves less than it costs. */
const SPLIT_FROM_ROWS = 50_000;

/** Only the rows of a range, from batches that start at its first row. */
export async function* within<T>(batches: AsyncGenerator<T[]>, range: RowRange): AsyncGenerator<T[]> {
  let left = range.toRow === null ? Infinity : range.toRow - range.fromRow + 1;
  try {
    for await (const batch of batches) {
      if (left <= 0) return;
      yield batch.length <= left ? batch : batch.slice(0, left);
      left -= batch.length;
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
  if (threads < 2 || run.source_format !== 'delimited' || total < SPLIT_FROM_ROWS) return [WHOLE_FILE];
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
