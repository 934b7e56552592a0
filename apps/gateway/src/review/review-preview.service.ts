import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import {
  allowedValueLabel,
  allowedValuesOf,
  cellFixesKey,
  fixesKey,
  isReviewWindowOver,
  noProblemsByKind,
  normalizeMapping,
  readValueFix,
  runPhase,
  sourceReadingKey,
  suggestAllowedValue,
  uniquenessGroups,
  type CellProblem,
  type CellRead,
  type DuplicateRows,
  type RunState,
} from '@app/domain';
import { CpuWork, DuplicateRowsFinder, ProblemCounter } from '@app/cpu-work';
import {
  limitSegmentsMemory,
  LISTED_ROWS_DISAGREE,
  pageRows,
  pageStart,
  readMappedSource,
  readReviewCell,
  readSampleRows,
  REVIEW_VALUE_CHARS,
  reviewCells,
  type ProblemSegments,
  type ProblemRowsPage,
  type ProblemRowsQuery,
  type ReviewCell,
} from '@app/run-source';
import { ApiError } from '../http/api-error';
import { reviewExpired } from './review.service';
import { supportedLocale } from './review-web';
import { filesDeleted, sourceReadFailure } from './source-read-failure';

export const PREVIEW_ROWS = 20;

export interface Preview {
  rows: Record<string, ReviewCell>[];
  /** The data rows among `rows` (numbered from 1 in the file) the reviewer left out: shown, not delivered. */
  left_out_rows: number[];
  /**
   * Up to three different non-empty values of each source column, from its first rows (what the column holds), each
   * cut to its first REVIEW_VALUE_CHARS characters (the page shows 60 of them).
   */
  column_samples: Record<string, string[]>;
}

/** Rows read for a column's samples, and how many samples each column gets. */
const SAMPLE_ROWS = 50;
const SAMPLES_PER_COLUMN = 3;
export interface ProblemCount {
  /** `counting`: still running (asked without waiting); the figures are then the rows checked so far and zeros. */
  status: 'counted' | 'superseded' | 'counting';
  rows_checked: number;
  rows_with_problems: number;
  /** Rows with a problem in each field; a row can count in several fields. */
  problems_by_field: Record<string, number>;
  /** Rows with at least one problem of each kind. */
  rows_by_kind: Record<CellProblem, number>;
  /** Per field, the cells missing where required and the cells not of the field's type. */
  problems_by_field_and_kind: Record<string, Record<CellProblem, number>>;
}

interface CountJob {
  key: string;
  abort: AbortController;
  result: Promise<ProblemCount>;
  /** Rows checked so far. */
  progress: number;
}

/** Rows per page of the problem list, unless the page asks for another size (at most 100). */
export const PROBLEM_ROWS_PER_PAGE = 20;

const CACHE_SIZE = 200;
/** Bytes of page segments kept over every count (limitSegmentsMemory): the newest counts' within it. */
const SEGMENTS_BUDGET = 32 * 1024 * 1024;
/** Answers of the duplicates pass kept (a bit per row and unique field each: 125 kB per field of a million rows). */
const DUPLICATES_CACHE_SIZE = 20;

/**
 * What the reviewer sees before approving: the first rows exactly as the output will
 * hold them, and how many rows of the whole file have problems under a mapping. Both
 * stream the stored source through the same reader as the final output.
 *
 * Counting reads the whole file, so results are cached per run, mapping and fixes, and a
 * newer mapping (or fix) for the same run stops the count still running for an older one.
 */
@Injectable()
export class ReviewPreviewService {
  private readonly logger = new Logger(ReviewPreviewService.name);
  private readonly counted = new Map<string, ProblemCount>();
  /** Where each finished count's matches lie, by the same key (kept out of the answers: the page needs only the figures). */
  private readonly segments = new Map<string, ProblemSegments>();
  private readonly running = new Map<string, CountJob>();
  /** A run's source never changes: its column samples are read once. */
  private readonly samples = new Map<string, Record<string, string[]>>();
  /** The duplicates pass per run, mapping and fixes (countKey), shared by the count, the pages and the preview. */
  private readonly duplicates = new Map<string, Promise<DuplicateRows | null>>();

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cpu: CpuWork,
    private readonly duplicatesFinder: DuplicateRowsFinder,
    private readonly counter: ProblemCounter,
  ) {}

  /** PREVIEW_ROWS rows from the file's row `offset + 1` (the first ones unless a page further on is asked for). */
  async preview(run: RunState, mapping: unknown, offset = 0): Promise<Preview> {
    const normalized = this.requirePreviewable(run, mapping);
    // The duplicates pass reads the source too (on a file-work thread): its failure answers as the read's does.
    const duplicates = await this.duplicateRows(run, normalized).catch((err: unknown) => {
      throw this.sourceReadFailure(run, 'the duplicates pass could not read the source', err);
    });
    const source = await this.open(run, normalized, duplicates, offset + 1);
    const rows: Preview['rows'] = [];
    const leftOut: number[] = [];
    try {
      while (rows.length < PREVIEW_ROWS) {
        // A read that fails midway answers as one that fails at the start (410 or 503); an error of ours stays a 500.
        const next = await source.batches.next().catch((err: unknown) => {
          throw this.sourceReadFailure(run, 'preview could not read the source', err);
        });
        if (next.done) break;
        for (const mapped of next.value) {
          rows.push(reviewCells(mapped, source.plan, REVIEW_VALUE_CHARS));
          if (mapped.left_out) leftOut.push(offset + rows.length);
          if (rows.length >= PREVIEW_ROWS) break;
        }
      }
    } finally {
      await source.batches.return(undefined);
    }
    return { rows, left_out_rows: leftOut, column_samples: await this.columnSamples(run) };
  }

  /**
   * The cell a cell edit names, read before the edit is decided (FixValues' `cell_read`): its value
   * as the fixes see it and as the rows show it (readReviewCell), so an edit whose
   * `before` no longer reads so is refused rather than recorded unused. Null where there is nothing to
   * read: another kind of fix, or one the decider refuses anyway (a review not open, an unknown field,
   * a fix it cannot read), or a row the file lacks.
   */
  async cellRead(run: RunState, field: string, fix: unknown): Promise<CellRead | null> {
    if (runPhase(run, new Date()) !== 'in_review' || !Object.hasOwn(run.schema.fields, field)) return null;
    const read = readValueFix(fix, run.total_rows, run.schema.fields[field]);
    if (!('fix' in read) || read.fix.kind !== 'cell') return null;
    if (run.files_purged_at) throw filesDeleted();
    // A delimited file is read from the row index entry before the row, here, as a preview at an offset is; a
    // workbook is read up to its row, in a worker thread (one waits there behind a count, but the API does not).
    const input = { run, field, row: read.fix.row };
    const reading =
      run.source_format === 'xlsx' ? this.cpu.run('readReviewCell', input) : readReviewCell(this.blobs, run, field, input.row);
    const cell = await reading.catch((err: unknown) => {
      throw this.sourceReadFailure(run, 'the cell to fix could not be read', err);
    });
    return cell && { ...cell, mapping_version: run.mapping_version, fixes_key: cellFixesKey(run.value_fixes ?? [], field, read.fix.row) };
  }

  /**
   * The file's first `count` rows as read from its top, whether taken as the header, left out above it or read as data
   * (for the reviewer's header choice).
   */
  async topRows(run: RunState, count: number): Promise<string[][]> {
    try {
      // Up to each row's last value: a title may reach past the table's columns.
      // As stored, merged cells too: any of these rows may be chosen as the header, whose names the merges do not fill.
      return await readSampleRows(this.blobs, { ...run, input_has_header: false, rows_above_header: [], merged_cells: [] }, count, {
        toLastValue: true,
      });
    } catch (err) {
      throw this.sourceReadFailure(run, 'the first rows could not be read', err);
    }
  }

  private async columnSamples(run: RunState): Promise<Record<string, string[]>> {
    const cacheKey = `${run.id}:${sourceReadingKey(run)}`;
    const known = this.samples.get(cacheKey);
    if (known) return known;
    const seen = run.source_headers.map(() => new Set<string>());
    const add = (row: string[]): boolean => {
      seen.forEach((values, i) => {
        const value = (row[i] ?? '').trim();
        if (value !== '' && values.size < SAMPLES_PER_COLUMN) values.add(value);
      });
      return seen.every((values) => values.size >= SAMPLES_PER_COLUMN);
    };
    try {
      // Cut as they are read: 50 rows of 1,000,000 characters are not held at once, nor cached (CACHE_SIZE runs); and
      // the read stops once every column has its samples (the same ones: the first different values of its first rows).
      await readSampleRows(this.blobs, run, SAMPLE_ROWS, { cellChars: REVIEW_VALUE_CHARS, enough: add });
    } catch (err) {
      throw this.sourceReadFailure(run, 'column samples could not be read', err);
    }
    const samples = Object.fromEntries(run.source_headers.map((header, i) => [header, [...seen[i]]]));
    this.samples.set(cacheKey, samples);
    if (this.samples.size > CACHE_SIZE) this.samples.delete(this.samples.keys().next().value as string);
    return samples;
  }

  /**
   * The whole-file problem count under a mapping. With `wait` false it answers at once: the
   * count if known, else `counting` with the rows checked so far (the count goes on; the
   * page asks again), so a page can show the count's progress.
   */
  async countProblems(run: RunState, mapping: unknown, wait = true): Promise<ProblemCount> {
    const normalized = this.requirePreviewable(run, mapping);
    const key = countKey(run, normalized);
    const cached = this.counted.get(key);
    if (cached) return cached;
    let job = this.running.get(run.id);
    if (job?.key !== key) {
      job?.abort.abort();
      job = this.startCount(run, normalized, key);
    }
    if (wait) return job.result;
    return { ...emptyCount(run, 'counting'), rows_checked: job.progress };
  }

  private startCount(run: RunState, mapping: MappingRule, key: string): CountJob {
    const abort = new AbortController();
    const job: CountJob = { key, abort, progress: 0, result: null as never };
    job.result = this.count(run, mapping, abort.signal, (rows) => (job.progress = rows))
      .then(({ count, segments }) => {
        if (count.status === 'counted') this.remember(key, count, segments);
        return count;
      })
      .finally(() => {
        if (this.running.get(run.id) === job) this.running.delete(run.id);
      });
    // Asked without waiting, nobody may await it: a failure is logged by count() and must not go unhandled.
    job.result.catch(() => undefined);
    this.running.set(run.id, job);
    return job;
  }

  /**
   * One page of the rows with problems over the whole file (filtered by field and kind),
   * each cell with its value and problem, read in a worker thread. With the count of the same
   * mapping done, a page over every field reads the rows the count lists for it (pageRows),
   * any other starts at the segment that holds its first row, and both stop when the page is
   * full; without a count the page reads the whole file (it must count the matches).
   */
  async problemRows(run: RunState, mapping: unknown, query: ProblemRowsQuery): Promise<ProblemRowsPage> {
    const normalized = this.requirePreviewable(run, mapping);
    if (query.field !== null && !Object.hasOwn(run.schema.fields, query.field))
      throw ApiError.validation({ field: [`The schema has no field named "${query.field}".`] });
    try {
      const key = countKey(run, normalized);
      await this.countUnderWay(run.id, key);
      const known = knownMatching(this.counted.get(key), query);
      const segments = this.segments.get(key);
      const duplicates = await this.duplicateRows(run, normalized);
      const read = (asked: ProblemRowsQuery) => this.cpu.run('findProblemRows', { run, mapping: normalized, query: asked, duplicates });
      if (!known || !segments) return found(await read(known ? { ...query, known } : query));
      const start = pageStart(segments, query);
      const fromSegment: ProblemRowsQuery = { ...query, known, ...(start ? { start } : {}) };
      // The page's own rows when the count kept them (a query over every field), as many as the count says the page holds.
      const rows = pageRows(segments, query);
      if (!rows || rows.length !== Math.min(query.limit, Math.max(0, known.matching - query.offset))) return found(await read(fromSegment));
      return found(
        await read({ ...query, known, rows }).catch(async (err: Error) => {
          if (!err.message.startsWith(LISTED_ROWS_DISAGREE)) throw err;
          // A fault, heard; the page is still answered, and this count's pages start at their segment from now on.
          this.logger.error(`Run ${run.id}: ${err.message}; the page is read from its segment`);
          this.segments.set(key, { ...segments, rowKinds: null });
          return read(fromSegment);
        }),
      );
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw this.sourceReadFailure(run, 'rows with problems could not be listed', err);
    }
  }

  /**
   * Waits for a count of the same run and mapping that is under way, if there is one: a page
   * asked meanwhile (a reviewer paging as the count runs) then starts at its rows once the
   * count's totals and segments are known, rather than reading the whole file beside the count
   * (on a million rows: 4.4 s for the count, then 30 ms, against 9 s). A count that fails or
   * is superseded leaves the page to read the whole file, as before.
   */
  private async countUnderWay(runId: string, key: string): Promise<void> {
    const job = this.running.get(runId);
    if (job?.key === key) await job.result.catch(() => undefined);
  }

  /**
   * The values a picklist field has over the whole file (before its picklist mapping), each
   * with its rows, the allowed value it is mapped to now and the one suggested for it.
   */
  async picklistValues(run: RunState, mapping: unknown, field: unknown) {
    const normalized = this.requirePreviewable(run, mapping);
    const definition = typeof field === 'string' && Object.hasOwn(run.schema.fields, field) ? run.schema.fields[field] : null;
    if (!definition || definition.data_type !== 'enum')
      throw ApiError.validation({ field: ['The field must be the name of a schema field of data_type "enum".'] });
    const name = field as string;
    const allowed = allowedValuesOf(definition);
    const latest = [...(run.value_fixes ?? [])].reverse().find((f) => f.field === name && f.fix.kind === 'picklist');
    const current = latest && latest.fix.kind === 'picklist' ? latest.fix.values : {};
    try {
      const found = await this.cpu.run('distinctFieldValues', { run, mapping: normalized, field: name });
      if (!found) throw new Error('the search was stopped');
      return {
        // In the reviewer's language, as the review view gives them.
        allowed_values: allowed.map((a) => ({ value: a.value, label: allowedValueLabel(a, supportedLocale(run.locale)) })),
        distinct: found.distinct,
        more: found.more,
        values: found.values.map((v) => ({
          ...v,
          mapped_to: Object.hasOwn(current, v.value) ? current[v.value] : null,
          suggestion: suggestAllowedValue(v.value, allowed),
        })),
      };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw this.sourceReadFailure(run, 'picklist values could not be read', err);
    }
  }

  /** Counts in a worker thread: a million rows must not hold up the API's event loop. */
  private async count(
    run: RunState,
    mapping: MappingRule,
    signal: AbortSignal,
    onProgress: (rows: number) => void,
  ): Promise<{ count: ProblemCount; segments: ProblemSegments | null }> {
    try {
      const duplicates = await this.duplicateRows(run, mapping);
      if (signal.aborted) return { count: emptyCount(run, 'superseded'), segments: null };
      const tally = await this.counter.count(run, mapping, duplicates, { signal, onProgress });
      if (!tally) return { count: emptyCount(run, 'superseded'), segments: null };
      const { segments, ...figures } = tally;
      return { count: { status: 'counted', ...figures }, segments };
    } catch (err) {
      if (signal.aborted) return { count: emptyCount(run, 'superseded'), segments: null };
      throw this.sourceReadFailure(run, 'problems could not be counted', err);
    }
  }

  /** What a failed read of the run's source answers (source-read-failure.ts), logged as this service. */
  private sourceReadFailure(run: RunState, what: string, err: unknown): ApiError {
    return sourceReadFailure(this.logger, run, what, err);
  }

  /**
   * Previews exist once the source is parsed and while it is kept: for open, approved and
   * canceled reviews, until `review_expires_at` (after it the link shows nothing but its
   * expired state) and until the sweeper deleted the files.
   */
  private requirePreviewable(run: RunState, mapping: unknown): MappingRule {
    if (isReviewWindowOver(run, new Date())) throw reviewExpired();
    if (run.files_purged_at) throw filesDeleted();
    if (run.status === 'failed') throw new ApiError(409, 'run_failed', 'conflict', 'The run has failed; there is nothing to preview.');
    if (run.review_state === null) throw new ApiError(409, 'review_not_ready', 'conflict', 'The review is not ready yet.');
    const { mapping: normalized, problems } = normalizeMapping(
      mapping ?? run.mapping_rule ?? {},
      Object.keys(run.schema.fields),
      run.source_headers,
    );
    if (problems.length > 0) throw ApiError.validation({ mapping_rule: problems.map((p) => p.message) });
    return normalized;
  }

  /**
   * The rows whose values repeat where the schema asks for unique ones (null when it asks for
   * none): a whole-file pass in a worker thread, run once per run, mapping and fixes and shared
   * by the count, the pages, the preview and the customer's checks (validation-hook/). A failed
   * pass is forgotten, so the next call tries again.
   */
  duplicateRows(run: RunState, mapping: MappingRule): Promise<DuplicateRows | null> {
    if (uniquenessGroups(run.schema).length === 0) return Promise.resolve(null);
    const key = countKey(run, mapping);
    let found = this.duplicates.get(key);
    if (!found) {
      found = this.duplicatesFinder.find(run, mapping);
      found.catch(() => this.duplicates.delete(key));
      this.duplicates.set(key, found);
      if (this.duplicates.size > DUPLICATES_CACHE_SIZE) this.duplicates.delete(this.duplicates.keys().next().value as string);
    }
    return found;
  }

  private async open(run: RunState, mapping: MappingRule, duplicates: DuplicateRows | null, fromRow: number) {
    try {
      // Values as the run's output delivers them: typed for JSON ("Y" shows true, "37.50" 37.5), text for CSV.
      return await readMappedSource(this.blobs, run, mapping, { typed: run.output_format === 'json', duplicates, fromRow });
    } catch (err) {
      throw this.sourceReadFailure(run, 'preview could not read the source', err);
    }
  }

  private remember(key: string, result: ProblemCount, segments: ProblemSegments | null): void {
    this.counted.set(key, result);
    if (segments) {
      this.segments.delete(key); // set again, it is the newest
      this.segments.set(key, segments);
      const keys = [...this.segments.keys()];
      limitSegmentsMemory([...this.segments.values()], SEGMENTS_BUDGET).forEach((kept, i) =>
        kept ? this.segments.set(keys[i], kept) : this.segments.delete(keys[i]),
      );
    }
    if (this.counted.size > CACHE_SIZE) {
      const oldest = this.counted.keys().next().value as string;
      this.counted.delete(oldest);
      this.segments.delete(oldest);
    }
  }
}

const emptyCount = (run: RunState, status: ProblemCount['status']): ProblemCount => ({
  status,
  rows_checked: 0,
  rows_with_problems: 0,
  problems_by_field: Object.fromEntries(Object.keys(run.schema.fields).map((f) => [f, 0])),
  rows_by_kind: noProblemsByKind(),
  problems_by_field_and_kind: Object.fromEntries(Object.keys(run.schema.fields).map((f) => [f, noProblemsByKind()])),
});

/** A page a worker thread read; null (the read was stopped) is an error here: nothing stops a page's read. */
function found(page: ProblemRowsPage | null): ProblemRowsPage {
  if (!page) throw new Error('the search was stopped');
  return page;
}

/** What a count is for: the run, its sheet and header choice, the mapping and the fixes in force. */
const countKey = (run: RunState, mapping: MappingRule): string =>
  `${run.id}:${sourceReadingKey(run)}:${mappingHash(mapping)}:${fixesKey(run.value_fixes ?? [])}`;

/** A member of the object itself, never one it inherits (a field may be named "constructor"). */
const own = <T>(o: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  o !== undefined && Object.hasOwn(o, key) ? o[key] : undefined;

/** The rows a query of the problem list matches, when a finished count for the same state knows it. */
function knownMatching(count: ProblemCount | undefined, query: ProblemRowsQuery): { matching: number; rows_checked: number } | null {
  if (!count || count.status !== 'counted') return null;
  const matching =
    query.field !== null && query.kind !== null
      ? own(own(count.problems_by_field_and_kind, query.field), query.kind)
      : query.field !== null
        ? own(count.problems_by_field, query.field)
        : query.kind !== null
          ? own(count.rows_by_kind, query.kind)
          : count.rows_with_problems;
  return matching === undefined ? null : { matching, rows_checked: count.rows_checked };
}

/** A stable key for a mapping: field order does not matter. */
export const mappingHash = (mapping: MappingRule): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        Object.keys(mapping)
          .sort()
          .map((k) => [k, mapping[k]]),
      ),
    )
    .digest('base64url');
