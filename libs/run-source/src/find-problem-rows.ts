import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { cellProblem, mapRow, type CellProblem, type DuplicateRows, type FieldPlan, type MappedRow, type RunState } from '@app/domain';
import { readPlannedRows } from './mapped-rows';
import { REVIEW_VALUE_CHARS, shortenedText } from './shortened-text';

/** Which rows a reviewer asks for: those with a problem, in one field and of one kind when named. */
export interface ProblemRowsQuery {
  field: string | null;
  kind: CellProblem | null;
  /** Matching rows to skip (the page's start) and to return at most. */
  offset: number;
  limit: number;
  /**
   * The totals when a finished count already knows them: the read then stops once the page is
   * full, so the first pages of a million-row file come at once instead of after a whole read.
   */
  known?: { matching: number; rows_checked: number };
  /**
   * Where the page's first match lies, when a finished count's segments tell (pageStart): the
   * read starts at that data row, with the matches before it already counted.
   */
  start?: { row: number; matchesBefore: number };
  /**
   * The data rows of the page's matches, in order, when a finished count's rows tell (pageRows):
   * only those rows are mapped and checked, the read stops at the last of them. With `known` and
   * over every field only (the check of a listed row is the whole plan's).
   */
  rows?: number[];
}

export interface ReviewCell {
  /**
   * The value as the run's output delivers it, written as text: typed for JSON output (true,
   * 37.5), as read for CSV; null when empty. A value with a problem is always the text as read.
   */
  value: string | null;
  problem: CellProblem | null;
  /**
   * Present (true) when `value` is only the value's first `maxChars` characters (reviewCells' bound, shortenedText): the
   * page says it was shortened. The output delivers the whole value.
   */
  shortened?: true;
}

/**
 * A mapped row as the review shows it: each field's value (typed when the row was mapped typed) and problem. A value
 * longer than `maxChars` is cut to it and marked `shortened` (the preview and the rows with problems pass
 * REVIEW_VALUE_CHARS); the default cuts nothing (a cell fix compares the whole value, readReviewCell).
 */
export function reviewCells(mapped: MappedRow, plan: FieldPlan[], maxChars = Infinity): Record<string, ReviewCell> {
  const problems = new Map(mapped.problems.map((p) => [p.field, p.problem]));
  return Object.fromEntries(
    plan.map((p): [string, ReviewCell] => {
      const value = mapped.record[p.name];
      const problem = problems.get(p.name) ?? null;
      if (value === null) return [p.name, { value: null, problem }];
      const { text, shortened } = shortenedText(String(value), maxChars);
      return [p.name, shortened ? { value: text, problem, shortened: true } : { value: text, problem }];
    }),
  );
}

export interface ProblemRow {
  /** The data row's number in the file, from 1 (the header row not counted). */
  row: number;
  cells: Record<string, ReviewCell>;
}

export interface ProblemRowsPage {
  rows: ProblemRow[];
  /** Rows of the whole file that match the query. */
  matching: number;
  rows_checked: number;
}

/**
 * The rows with problems over the whole stored source under a mapping, a page at a time:
 * every row is checked (the total is exact) unless the totals are known, and only the page's
 * rows are kept. With the totals: a page past the last match is empty at once; a page over every
 * field whose rows the count listed (`rows`) reads and checks only those; else, with the count's
 * segments, the read starts near the page. The cells are mapped by the same reader as the preview
 * and the output. Returns null when `signal` aborts it.
 */
export async function findProblemRows(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  query: ProblemRowsQuery,
  signal?: AbortSignal,
  duplicates: DuplicateRows | null = null,
): Promise<ProblemRowsPage | null> {
  // Past the last match there is nothing to read: a stale page number must not cost a read of the whole file.
  if (query.known && query.offset >= query.known.matching) return { rows: [], ...query.known };
  if (query.known && query.rows && query.field === null)
    return listedRows(blobs, run, mapping, { ...query, known: query.known, rows: query.rows }, signal, duplicates);
  // Without the count's totals every row must be read (the total is part of the answer), so a start is used only with them.
  const start = query.known ? query.start : undefined;
  const source = await readPlannedRows(blobs, run, mapping, duplicates, start?.row ?? 1);
  const plan = query.field === null ? source.plan : source.plan.filter((p) => p.name === query.field);
  const rows: ProblemRow[] = [];
  let checked = source.firstRow - 1;
  let matching = start?.matchesBefore ?? 0;
  try {
    for await (const batch of source.batches) {
      if (signal?.aborted) return null;
      for (const row of batch) {
        checked++;
        if (!plan.some((p) => matches(cellProblem(p, row, checked), query.kind))) continue;
        // Left out by the reviewer, it has no problems (count-problems.ts counts none).
        if (source.leftOut?.(checked)) continue;
        matching++;
        if (matching <= query.offset || rows.length >= query.limit) continue;
        rows.push({
          row: checked,
          cells: reviewCells(mapRow(row, checked, source.plan, run.output_format === 'json'), source.plan, REVIEW_VALUE_CHARS),
        });
        if (query.known && rows.length >= query.limit) return { rows, ...query.known };
      }
    }
  } finally {
    await source.batches.return(undefined);
  }
  return { rows, matching, rows_checked: checked };
}

/** What a read of listed rows throws when they do not make the page (a thread's error keeps only its message). */
export const LISTED_ROWS_DISAGREE = 'the rows the count listed do not make the page';

/**
 * The rows a finished count listed for a page (pageRows), read from the first of them. Each is
 * checked again: a listed row without a matching problem means the count and the page read the
 * file differently, which is a fault to hear about (LISTED_ROWS_DISAGREE), not a page to show.
 */
async function listedRows(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  query: ProblemRowsQuery & { known: { matching: number; rows_checked: number }; rows: number[] },
  signal: AbortSignal | undefined,
  duplicates: DuplicateRows | null,
): Promise<ProblemRowsPage | null> {
  const wanted = query.rows;
  if (wanted.length === 0) return { rows: [], ...query.known };
  const source = await readPlannedRows(blobs, run, mapping, duplicates, wanted[0]);
  const rows: ProblemRow[] = [];
  let n = source.firstRow - 1;
  try {
    for await (const batch of source.batches) {
      if (signal?.aborted) return null;
      for (const row of batch) {
        if (++n !== wanted[rows.length]) continue;
        if (!source.plan.some((p) => matches(cellProblem(p, row, n), query.kind)) || source.leftOut?.(n))
          throw new Error(`${LISTED_ROWS_DISAGREE}: row ${n} was counted with a problem that a page of the same mapping does not find`);
        rows.push({
          row: n,
          cells: reviewCells(mapRow(row, n, source.plan, run.output_format === 'json'), source.plan, REVIEW_VALUE_CHARS),
        });
        if (rows.length === wanted.length) return { rows, ...query.known };
      }
    }
  } finally {
    await source.batches.return(undefined);
  }
  throw new Error(`${LISTED_ROWS_DISAGREE}: the file ended before row ${wanted[rows.length]}, which the count listed`);
}

const matches = (problem: CellProblem | null, kind: CellProblem | null): boolean => problem !== null && (kind === null || problem === kind);
