import type { BlobStore } from '@app/blob-storage';
import { cellOf, mapRow, type RunState } from '@app/domain';
import { reviewCells } from './find-problem-rows';
import { readPlannedRows } from './mapped-rows';

/** One cell of a run's rows under its saved mapping and fixes: as a cell fix compares it, and as the review shows it. */
export interface ReviewCellRead {
  /** As the fixes see it (cellOf): after the field's transformations and the fixes in force. */
  value: string;
  /** As the review's rows show it (reviewCells: typed for JSON output), "" when empty. */
  shown: string;
}

/**
 * Reads one cell, for a cell fix to be checked against what the reviewer saw: one row is read,
 * from the row index entry before it when the file has an index (a workbook is read up to it,
 * which is why this runs in a worker thread). Null when the file has no such row or the
 * mapping feeds no such field.
 */
export async function readReviewCell(blobs: BlobStore, run: RunState, field: string, row: number): Promise<ReviewCellRead | null> {
  const source = await readPlannedRows(blobs, run, run.mapping_rule ?? {}, null, row);
  try {
    const plan = source.plan.find((p) => p.name === field);
    if (!plan) return null;
    for await (const batch of source.batches) {
      if (batch.length === 0) continue;
      const shown = reviewCells(mapRow(batch[0], row, [plan], run.output_format === 'json'), [plan])[field].value;
      return { value: cellOf(plan, batch[0], row), shown: shown ?? '' };
    }
    return null;
  } finally {
    await source.batches.return(undefined);
  }
}
