import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import {
  CELL_PROBLEMS,
  compileCellProblem,
  noProblemsByKind,
  rememberedShare,
  type CellProblem,
  type DuplicateRows,
  type RunState,
} from '@app/domain';
import { readPlannedRows } from './mapped-rows';
import { joinProblemSegments, ProblemSegmentsBuilder, segmentRowsFor, type ProblemSegments } from './problem-segments';
import { WHOLE_FILE, within, type RowRange } from './row-range';

export interface ProblemTally {
  rows_checked: number;
  rows_with_problems: number;
  problems_by_field: Record<string, number>;
  /** Rows with at least one problem of each kind. */
  rows_by_kind: Record<CellProblem, number>;
  /** Cells with each kind of problem, per field (a value missing where required, or not of the field's type). */
  problems_by_field_and_kind: Record<string, Record<CellProblem, number>>;
  /** Where the matches of each query of the rows-with-problems list lie (for pages far into the file). */
  segments: ProblemSegments;
}

/**
 * Counts, over the whole stored source (or a range of its rows: one thread's half, joined by
 * joinProblemTallies), the rows that a mapping leaves with problems and the problems per field
 * and kind. Returns null when `signal` aborts it (a newer mapping came); `onProgress` hears the
 * rows checked so far after each batch.
 */
export async function countMappingProblems(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  signal?: AbortSignal,
  onProgress: (rowsChecked: number) => void = () => undefined,
  duplicates: DuplicateRows | null = null,
  range: RowRange = WHOLE_FILE,
): Promise<ProblemTally | null> {
  const source = await readPlannedRows(blobs, run, mapping, duplicates, range.fromRow);
  const byField: Record<string, number> = Object.fromEntries(source.plan.map((p) => [p.name, 0]));
  const byKind: Record<string, Record<CellProblem, number>> = Object.fromEntries(source.plan.map((p) => [p.name, noProblemsByKind()]));
  const plan = source.plan;
  let checked = 0;
  let withProblems = 0;
  const rowsByKind = noProblemsByKind();
  // The kinds seen in the current row (a row counts once per kind however many cells have it).
  const seen = new Set<CellProblem>();
  const segments = new ProblemSegmentsBuilder(
    plan.map((p) => p.name),
    range.fromRow,
    segmentRowsFor(run.source_headers.length, plan.length, run.total_rows),
  );
  const rowProblems: (CellProblem | null)[] = plan.map(() => null);
  const remembered = rememberedShare(plan.length);
  const problemOf = plan.map((p) => compileCellProblem(p, remembered));
  // A row the reviewer left out has no problems: it is not delivered (it is still counted as checked).
  const leftOut = source.leftOut;
  const none: (CellProblem | null)[] = plan.map(() => null);
  try {
    for await (const batch of within(source.batches, range)) {
      if (signal?.aborted) return null;
      for (const row of batch) {
        const rowNumber = range.fromRow + checked++;
        if (leftOut !== null && leftOut(rowNumber)) {
          segments.row(none);
          continue;
        }
        seen.clear();
        for (let f = 0; f < plan.length; f++) {
          const p = plan[f];
          const found = problemOf[f](row, rowNumber);
          rowProblems[f] = found;
          if (found) {
            byField[p.name]++;
            byKind[p.name][found]++;
            seen.add(found);
          }
        }
        if (seen.size > 0) withProblems++;
        for (const kind of seen) rowsByKind[kind]++;
        segments.row(rowProblems);
      }
      onProgress(checked);
    }
  } finally {
    await source.batches.return(undefined);
  }
  return {
    rows_checked: checked,
    rows_with_problems: withProblems,
    problems_by_field: byField,
    rows_by_kind: rowsByKind,
    problems_by_field_and_kind: byKind,
    segments: segments.result(),
  };
}

/** The tallies of consecutive ranges of a file (in order, together the whole file) as one tally of the file. */
export function joinProblemTallies(parts: { range: RowRange; tally: ProblemTally }[]): ProblemTally {
  const joined: ProblemTally = {
    rows_checked: 0,
    rows_with_problems: 0,
    problems_by_field: {},
    rows_by_kind: noProblemsByKind(),
    problems_by_field_and_kind: {},
    segments: joinProblemSegments(parts.map((p) => ({ firstRow: p.range.fromRow, segments: p.tally.segments }))),
  };
  for (const { tally } of parts) {
    joined.rows_checked += tally.rows_checked;
    joined.rows_with_problems += tally.rows_with_problems;
    // Own keys only: a field may be named "constructor" or "toString", which every object inherits.
    const byField = joined.problems_by_field;
    for (const [field, n] of Object.entries(tally.problems_by_field))
      byField[field] = (Object.hasOwn(byField, field) ? byField[field] : 0) + n;
    for (const kind of CELL_PROBLEMS) joined.rows_by_kind[kind] += tally.rows_by_kind[kind];
    const byKind = joined.problems_by_field_and_kind;
    for (const [field, kinds] of Object.entries(tally.problems_by_field_and_kind)) {
      const into = Object.hasOwn(byKind, field) ? byKind[field] : (byKind[field] = noProblemsByKind());
      for (const kind of CELL_PROBLEMS) into[kind] += kinds[kind];
    }
  }
  return joined;
}
