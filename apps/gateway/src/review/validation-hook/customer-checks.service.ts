import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig, type ValidationHookConfig } from '@app/config';
import type { MappingRule } from '@app/contracts';
import { DIRECTORY, type Directory } from '@app/directory';
import { cellOf, fixesKey, mapRow, normalizeMapping, sourceReadingKey, type DuplicateRows, type RunState } from '@app/domain';
import { readPlannedRows, type ProblemRowsPage, type ReviewCell } from '@app/run-source';
import { mappingHash, ReviewPreviewService } from '../review-preview.service';
import { VALIDATE_EVENT, type Findings, type SentRow } from './hook-answer';
import { HookAnswers } from './hook-answers.store';
import {
  addFindingsToCount,
  CUSTOMER_PROBLEM,
  mayMatch,
  pageWithFindings,
  withFindings,
  type CheckedRow,
  type CountFigures,
  type PageQuery,
} from './merge-findings';
import { ValidationHookClient, type HookFailure } from './validation-hook.client';

/** What the page says of the customer's checks (`customer_checks` in the preview, count and rows answers). */
export interface CustomerChecksStatus {
  /** `running`: not answered yet (the page asks again); `ran`: every batch answered; `failed`: see `reason`. */
  status: 'running' | 'ran' | 'failed';
  /** Rows sent up front, all the counts cover: the file's first VALIDATION_HOOK_MAX_ROWS at most. */
  rows_checked: number;
  /** Rows of the file, when known: more than `rows_checked` means the counts do not cover them all. */
  total_rows: number | null;
  /** Why the checks could not run: no answer in time, an address the guard refused, no connection, an HTTP error, an answer we cannot read. */
  reason: HookFailure | 'error' | null;
  /** The failure in a few words (never the URL's query, the headers or the secret). */
  detail: string | null;
  /**
   * The checks of this answer's rows past the first `rows_checked`, sent when the page asked for
   * them (absent when it has none): `running` means the page should ask again.
   */
  page?: { status: 'running' | 'ran' | 'failed'; reason: HookFailure | 'error' | null; detail: string | null };
}

type PageStatus = NonNullable<CustomerChecksStatus['page']>;

interface Checked {
  status: CustomerChecksStatus;
  /** The first rows sent that have a problem of ours or a finding, in order: the others match no query and show nothing. */
  rows: CheckedRow[];
  byRow: Map<number, CheckedRow>;
  findings: Findings;
}
/** A row read for the hook: as the review shows it, and the values it is sent. */
type ReadRow = CheckedRow & { values: SentRow['values'] };
/** Checks not answered yet: a status and nothing to merge. */
type Checks = Checked | { status: CustomerChecksStatus; rows?: undefined };

interface Job {
  key: string;
  abort: AbortController;
  result: Promise<Checked | null>;
}

/** The checks of rows past the first ones: their findings, and each row's text (what a fix must find). */
type Failure = { ok: false; reason: HookFailure | 'error'; detail: string };
type LaterChecks = { ok: true; findings: Findings; text: Map<number, Record<string, string>> } | Failure;

/** Finished checks kept (per run, mapping and fixes), and checks of later rows kept (per state and batches). */
const RESULTS_KEPT = 20;
const LATER_KEPT = 200;
/** Batches in flight at once to one hook, for one job. */
const CONCURRENT_BATCHES = 4;
/** The longest a page waits for its later rows' checks before it answers without them (and says they run). */
const PAGE_WAIT_MS = 2000;
/** Later batches this near each other are read in one pass; further apart, a new read starts near the next (row index). */
const READ_THROUGH_BATCHES = 20;

const remember = <K, V>(map: Map<K, V>, key: K, value: V, max: number) => {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
};

/**
 * The customer's own checks of a run's rows: a schema's `validation_url` is sent the run's rows,
 * mapped as the output will hold them, in batches, and its findings join our problems. Up front
 * (started by the review's first preview, and again after each mapping change or fix, as the
 * count is) the file's first VALIDATION_HOOK_MAX_ROWS rows go; the counts cover them. Rows past
 * them go when a page shows them (a page of the preview or of the rows with problems): the
 * batches holding the page's rows, so the page shows the hook's findings wherever it is.
 *
 * Each batch's answer is kept per batch content (HookAnswers: memory, and a blob beside the
 * run's rows every instance reads), so an edit, a restart or another instance sends again only
 * the batches whose rows changed. Nothing here blocks the review: until the hook answers the
 * page shows our problems alone, and a hook that fails is a status the page states (approval
 * stays possible).
 */
@Injectable()
export class CustomerChecks {
  private readonly logger = new Logger(CustomerChecks.name);
  private readonly finished = new Map<string, Checked>();
  private readonly running = new Map<string, Job>();
  private readonly later = new Map<string, Promise<LaterChecks>>();
  private readonly settings: ValidationHookConfig;

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly client: ValidationHookClient,
    private readonly previews: ReviewPreviewService,
    private readonly answers: HookAnswers,
  ) {
    this.settings = config.validationHook;
  }

  /** The checks for a run's state: finished, or started (or going on) and not waited for. Null when the schema has no hook. */
  peek(run: RunState, mapping: unknown): Checks | null {
    const url = run.schema.validation_url;
    if (!url) return null;
    const normalized = normalizedMapping(run, mapping);
    const key = checksKey(run, normalized, url);
    const done = this.finished.get(key);
    if (done) return done;
    const job = this.running.get(run.id);
    if (job?.key !== key) {
      // A newer mapping or fix: the checks still running for the older one are of no use.
      job?.abort.abort();
      this.start(run, normalized, url, key);
    }
    return { status: { status: 'running', rows_checked: 0, total_rows: run.total_rows, reason: null, detail: null } };
  }

  /** Waits for the checks of a run's state (at most VALIDATION_HOOK_DEADLINE_MS); null when the schema has no hook. */
  async settle(run: RunState, mapping: unknown): Promise<Checks | null> {
    const now = this.peek(run, mapping);
    if (now === null || now.rows) return now;
    await this.running.get(run.id)?.result;
    return this.peek(run, mapping);
  }

  /** A preview's rows (the file's rows from `firstRow`, in order) with the customer's findings, and the checks' status. */
  async withPreview<P extends { rows: Record<string, ReviewCell>[] }>(run: RunState, mapping: unknown, preview: P, firstRow = 1) {
    const checks = this.peek(run, mapping);
    if (!checks) return preview;
    if (!checks.rows) return { ...preview, customer_checks: checks.status };
    const numbered = preview.rows.map((cells, i) => ({ row: firstRow + i, cells }));
    const { rows, status } = await this.withLaterFindings(run, mapping, checks, numbered);
    return { ...preview, rows: rows.map((r) => r.cells), customer_checks: status };
  }

  /** A count with the customer's findings added once the hook answered (a count not finished is left as it is). */
  async withCount<C extends CountFigures & { status: string }>(run: RunState, mapping: unknown, count: C, wait: boolean) {
    const checks = wait ? await this.settle(run, mapping) : this.peek(run, mapping);
    if (!checks) return count;
    if (!checks.rows) return { ...count, customer_checks: checks.status };
    if (count.status !== 'counted') return { ...count, customer_checks: checks.status };
    return { ...addFindingsToCount(count, checks.rows, checks.findings), customer_checks: checks.status };
  }

  /** A page of the rows with problems, the customer's among them once the hook answered. */
  async problemRows(run: RunState, mapping: unknown, query: PageQuery, ownPage: (query: PageQuery) => Promise<ProblemRowsPage>) {
    const checks = this.peek(run, mapping);
    if (!checks) return query.kind === CUSTOMER_PROBLEM ? { rows: [], matching: 0, rows_checked: 0 } : ownPage(query);
    if (!checks.rows) {
      if (query.kind === CUSTOMER_PROBLEM) return { rows: [], matching: 0, rows_checked: 0, customer_checks: checks.status };
      return { ...(await ownPage(query)), customer_checks: checks.status };
    }
    const page = await pageWithFindings(
      checks.rows,
      checks.status.rows_checked,
      checks.findings,
      query,
      query.kind === CUSTOMER_PROBLEM ? null : ownPage,
    );
    const { rows, status } = await this.withLaterFindings(run, mapping, checks, page.rows);
    return { ...page, rows, customer_checks: status };
  }

  /**
   * A page's rows with the customer's findings: from the checks up front for the first rows,
   * and for rows past them from their batches, sent now (or answered before). The page waits
   * for those a little (PAGE_WAIT_MS), then answers without them and says they are running.
   */
  private async withLaterFindings<R extends { row: number; cells: Record<string, ReviewCell> }>(
    run: RunState,
    mapping: unknown,
    checks: Checked,
    rows: R[],
  ): Promise<{ rows: R[]; status: CustomerChecksStatus }> {
    const upFront = checks.status.rows_checked;
    const merged = rows.map((r) =>
      r.row > upFront ? r : { ...r, cells: withFindings(r.cells, checks.findings.get(r.row), checks.byRow.get(r.row)?.text) },
    );
    const past = rows.filter((r) => r.row > upFront);
    const url = run.schema.validation_url;
    // A hook that failed up front is reported as such; it is not asked about more rows for this state.
    if (past.length === 0 || checks.status.status !== 'ran' || !url) return { rows: merged, status: checks.status };
    const normalized = normalizedMapping(run, mapping);
    const indexes = [...new Set(past.map((r) => Math.floor((r.row - 1) / this.settings.batchRows)))].sort((a, b) => a - b);
    const key = `${checksKey(run, normalized, url)}|${indexes.join(',')}`;
    let job = this.later.get(key);
    if (!job) {
      const started = this.checkLater(run, normalized, url, indexes);
      job = started;
      remember(this.later, key, started, LATER_KEPT);
      // A failure is stated once; a later visit of the page tries again.
      void started.then((outcome) => {
        if (!outcome.ok && this.later.get(key) === started) this.later.delete(key);
      });
    }
    // The timer does not hold the process up once the page is answered.
    const waited = sleep(Math.min(PAGE_WAIT_MS, this.settings.deadlineMs), null, { ref: false });
    const outcome = await Promise.race([job, waited]);
    const page = (p: PageStatus): CustomerChecksStatus => ({ ...checks.status, page: p });
    if (!outcome) return { rows: merged, status: page({ status: 'running', reason: null, detail: null }) };
    if (!outcome.ok) return { rows: merged, status: page({ status: 'failed', reason: outcome.reason, detail: outcome.detail }) };
    return {
      rows: merged.map((r) =>
        r.row > upFront ? { ...r, cells: withFindings(r.cells, outcome.findings.get(r.row), outcome.text.get(r.row)) } : r,
      ),
      status: page({ status: 'ran', reason: null, detail: null }),
    };
  }

  private start(run: RunState, mapping: MappingRule, url: string, key: string): Job {
    const abort = new AbortController();
    const job: Job = {
      key,
      abort,
      result: this.check(run, mapping, url, abort.signal)
        .then((checked) => {
          if (checked) remember(this.finished, key, checked, RESULTS_KEPT);
          return checked;
        })
        .finally(() => {
          if (this.running.get(run.id) === job) this.running.delete(run.id);
        }),
    };
    this.running.set(run.id, job);
    return job;
  }

  /** Reads the first rows, sends them in batches, and gathers the findings; null when a newer state superseded it. */
  private async check(run: RunState, mapping: MappingRule, url: string, superseded: AbortSignal): Promise<Checked | null> {
    const signal = AbortSignal.any([superseded, AbortSignal.timeout(this.settings.deadlineMs)]);
    const failed = (reason: CustomerChecksStatus['reason'], detail: string): Checked => ({
      status: { status: 'failed', rows_checked: 0, total_rows: run.total_rows, reason, detail },
      rows: [],
      byRow: new Map(),
      findings: new Map(),
    });
    let rows: ReadRow[];
    let secret: string;
    try {
      const org = await this.directory.getOrganization(run.organization_id);
      if (!org) return failed('error', 'the organization does not exist');
      secret = org.webhook_secret;
      rows = await collect(this.readRows(run, mapping, null, 1, this.settings.maxRows));
    } catch (err) {
      this.logger.error(`Run ${run.id}: the rows for the customer's checks could not be read: ${(err as Error).message}`);
      return failed('error', 'the rows could not be read');
    }
    // Batch i holds rows i·B+1 to (i+1)·B, as the batches sent later for rows past these do (batchesAt): rows left out
    // by the reviewer are not sent, and leave their batch shorter rather than moving later rows into it.
    const byBatch = new Map<number, SentRow[]>();
    for (const r of rows) {
      const index = Math.floor((r.row - 1) / this.settings.batchRows);
      const batch = byBatch.get(index) ?? [];
      batch.push({ row: r.row, values: r.values });
      byBatch.set(index, batch);
    }
    const batches = [...byBatch.values()];
    const outcome = await this.sendBatches(run, url, secret, batches, signal);
    if (superseded.aborted) return null;
    if (!outcome.ok) return failed(outcome.reason, outcome.detail);
    const { findings } = outcome;
    // Sent without waiting for the duplicates pass (values do not depend on it); merged with it, so
    // our own problems among the first rows are exactly those the count and the pages see.
    let shown: CheckedRow[];
    try {
      const duplicates = await this.previews.duplicateRows(run, mapping);
      shown = duplicates ? await collect(this.readRows(run, mapping, duplicates, 1, this.settings.maxRows)) : rows;
    } catch (err) {
      this.logger.error(`Run ${run.id}: the rows for the customer's checks could not be read: ${(err as Error).message}`);
      return failed('error', 'the rows could not be read');
    }
    if (superseded.aborted) return null;
    // What was sent is not kept, nor the rows that can show nothing: the cells and texts are what the review shows and fixes.
    const kept = shown.filter((r) => mayMatch(r, findings)).map(({ row, cells, text }) => ({ row, cells, text }));
    return {
      // The rows covered, by number (those left out among them included): where the batches sent later begin.
      status: {
        status: 'ran',
        rows_checked: Math.min(this.settings.maxRows, run.total_rows ?? rows.at(-1)?.row ?? 0),
        total_rows: run.total_rows,
        reason: null,
        detail: null,
      },
      rows: kept,
      byRow: new Map(kept.map((r) => [r.row, r])),
      findings,
    };
  }

  /** Sends the batches (index `i` holds rows i·B+1 to (i+1)·B) of rows past the first ones, for a page that shows them. */
  private async checkLater(run: RunState, mapping: MappingRule, url: string, indexes: number[]): Promise<LaterChecks> {
    const failed = (detail: string): Failure => ({ ok: false, reason: 'error', detail });
    let batches: ReadRow[][];
    let secret: string;
    try {
      const org = await this.directory.getOrganization(run.organization_id);
      if (!org) return failed('the organization does not exist');
      secret = org.webhook_secret;
      batches = await this.batchesAt(run, mapping, indexes);
    } catch (err) {
      this.logger.error(`Run ${run.id}: the rows for the customer's checks could not be read: ${(err as Error).message}`);
      return failed('the rows could not be read');
    }
    const sent = batches.map((batch) => batch.map((r) => ({ row: r.row, values: r.values })));
    const outcome = await this.sendBatches(run, url, secret, sent, AbortSignal.timeout(this.settings.deadlineMs));
    if (!outcome.ok) return outcome;
    const text = new Map<number, Record<string, string>>();
    for (const batch of batches) for (const r of batch) if (outcome.findings.has(r.row)) text.set(r.row, r.text);
    return { ok: true, findings: outcome.findings, text };
  }

  /**
   * Sends batches (at most CONCURRENT_BATCHES at once), each only when no answer to the same
   * batch is kept, and gathers the findings; the first failure stops it. New answers are kept
   * whatever happens to the others.
   */
  private async sendBatches(
    run: RunState,
    url: string,
    secret: string,
    batches: SentRow[][],
    signal: AbortSignal,
  ): Promise<{ ok: true; findings: Findings } | Failure> {
    const fields = Object.keys(run.schema.fields);
    const keys = batches.map((rows) => batchKey(run, url, rows));
    const known = await this.answers.known(run, keys);
    const findings: Findings = new Map();
    const add = (found: Findings) => {
      for (const [row, cells] of found) findings.set(row, cells);
    };
    const toSend: number[] = [];
    keys.forEach((key, i) => {
      const answer = known.get(key);
      if (answer) add(answer);
      else toSend.push(i);
    });
    const fresh = new Map<string, Findings>();
    try {
      for (let g = 0; g < toSend.length; g += CONCURRENT_BATCHES) {
        if (signal.aborted) return { ok: false, reason: 'timeout', detail: 'no answer within the time the review waits' };
        const group = toSend.slice(g, g + CONCURRENT_BATCHES);
        const outcomes = await Promise.all(
          group.map((i) =>
            this.client.send(
              url,
              secret,
              { type: VALIDATE_EVENT, run_id: run.id, schema_id: run.schema.id, rows: batches[i] },
              fields,
              signal,
            ),
          ),
        );
        let failure: Failure | null = null;
        outcomes.forEach((outcome, n) => {
          if (outcome.ok) {
            add(outcome.findings);
            fresh.set(keys[group[n]], outcome.findings);
          } else failure ??= outcome;
        });
        if (failure) {
          // The URL is the customer's (its query may carry a token): the log names the run and the reason only.
          this.logger.warn(`Run ${run.id}: the customer's validation hook failed: ${(failure as Failure).detail}`);
          return failure;
        }
      }
    } finally {
      await this.answers.keep(run, fresh);
    }
    return { ok: true, findings };
  }

  /** The rows of batches past the first ones, batch by batch (an empty one, past the file's end, left out). */
  private async batchesAt(run: RunState, mapping: MappingRule, indexes: number[]): Promise<ReadRow[][]> {
    const size = this.settings.batchRows;
    const out: ReadRow[][] = [];
    for (let i = 0; i < indexes.length;) {
      let j = i;
      while (j + 1 < indexes.length && indexes[j + 1] - indexes[j] <= READ_THROUGH_BATCHES) j++;
      const wanted = new Set(indexes.slice(i, j + 1));
      const byBatch = new Map<number, ReadRow[]>();
      const from = indexes[i] * size + 1;
      for await (const row of this.readRows(run, mapping, null, from, (indexes[j] + 1) * size - from + 1)) {
        const index = Math.floor((row.row - 1) / size);
        if (!wanted.has(index)) continue;
        byBatch.set(index, [...(byBatch.get(index) ?? []), row]);
      }
      for (const index of indexes.slice(i, j + 1)) {
        const rows = byBatch.get(index);
        if (rows?.length) out.push(rows);
      }
      i = j + 1;
    }
    return out;
  }

  /**
   * The rows numbered `from` to `from + count - 1` as the output will hold them (typed for JSON output), with each field's
   * text and our problems; those the reviewer left out are not among them.
   */
  private async *readRows(
    run: RunState,
    mapping: MappingRule,
    duplicates: DuplicateRows | null,
    from: number,
    count: number,
  ): AsyncGenerator<ReadRow> {
    const source = await readPlannedRows(this.blobs, run, mapping, duplicates, from);
    const typed = run.output_format === 'json';
    let number = source.firstRow - 1;
    try {
      for await (const batch of source.batches) {
        for (const row of batch) {
          number++;
          // A row the reviewer left out will not be delivered: the customer's checks are not asked about it.
          if (source.leftOut?.(number)) {
            if (number >= from + count - 1) return;
            continue;
          }
          const mapped = mapRow(row, number, source.plan, typed);
          const problems = new Map(mapped.problems.map((p) => [p.field, p.problem]));
          const cells: Record<string, ReviewCell> = {};
          const text: Record<string, string> = {};
          for (const p of source.plan) {
            const value = mapped.record[p.name];
            cells[p.name] = { value: value === null ? null : String(value), problem: problems.get(p.name) ?? null };
            text[p.name] = cellOf(p, row, number);
          }
          yield { row: number, cells, text, values: mapped.record };
          if (number >= from + count - 1) return;
        }
      }
    } finally {
      await source.batches.return(undefined);
    }
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function normalizedMapping(run: RunState, mapping: unknown): MappingRule {
  // The preview or count asked first has refused a mapping with problems: what is left is valid.
  return normalizeMapping(mapping ?? run.mapping_rule ?? {}, Object.keys(run.schema.fields), run.source_headers).mapping;
}

/** What the checks are for: the run, its sheet and header choice, the mapping, the fixes in force and the hook. */
const checksKey = (run: RunState, mapping: MappingRule, url: string): string =>
  `${run.id}:${sourceReadingKey(run)}:${mappingHash(mapping)}:${fixesKey(run.value_fixes ?? [])}:${url}`;

/**
 * A batch's answer is kept per run, URL and rows sent (numbers and values): the customer's answer
 * may depend on more than the rows (what it already holds, the run's context).
 */
const batchKey = (run: RunState, url: string, rows: SentRow[]): string =>
  createHash('sha256').update(`${run.id}\n${url}\n`).update(JSON.stringify(rows)).digest('base64url');
