import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { cellOf, type RunState } from '@app/domain';
import { readPlannedRows } from './mapped-rows';

export interface ProblemTally {
  rows_checked: number;
  rows_with_problems: number;
  problems_by_field: Record<string, number>;
}

/**
 * Counts, over the whole stored source, the rows that a mapping leaves with problems and
 * the problems per field. Returns null when `signal` aborts it (a newer mapping came).
 */
export async function countMappingProblems(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  signal?: AbortSignal,
): Promise<ProblemTally | null> {
  const source = await readPlannedRows(blobs, run, mapping);
  const byField: Record<string, number> = Object.fromEntries(source.plan.map((p) => [p.name, 0]));
  const plan = source.plan;
  let checked = 0;
  let withProblems = 0;
  try {
    for await (const batch of source.batches) {
      if (signal?.aborted) return null;
      for (const row of batch) {
        checked++;
        let problem = false;
        for (const p of plan) {
          if (p.check(cellOf(p, row)).problem) {
            byField[p.name]++;
            problem = true;
          }
        }
        if (problem) withProblems++;
      }
    }
  } finally {
    await source.batches.return(undefined);
  }
  return { rows_checked: checked, rows_with_problems: withProblems, problems_by_field: byField };
}
