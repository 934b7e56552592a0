import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig, type ValidationHookConfig } from '@app/config';
import type { MappingRule } from '@app/contracts';
import { DIRECTORY, type Directory } from '@app/directory';
import { cellOf, fixesKey, mapRow, normalizeMapping, type DuplicateRows, type RunState } from '@app/domain';
import { readPlannedRows, type ProblemRowsPage, type ReviewCell } from '@app/run-source';
import { mappingHash, ReviewPreviewService } from '../review-preview.service';
import { VALIDATE_EVENT, type Findings, type SentRow } from './hook-answer';
import {
  addFindingsToCount,
  CUSTOMER_PROBLEM,
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
  /** Rows sent to the hook: the file's first VALIDATION_HOOK_MAX_ROWS at most. */
  rows_checked: number;
  /** Rows of the file, when known: more than `rows_checked` means the hook did not see them all. */
  total_rows: number | null;
  /** Why the checks could not run: no answer in time, an address the guard refused, no connection, an HTTP error, an answer we cannot read. */
  reason: HookFailure | 'error' | null;
  /** The failure in a few words (never the URL's query, the headers or the secret). */
  detail: string | null;
}

interface Checked {
  status: CustomerChecksStatus;
  rows: CheckedRow[];
  findings: Findings;
}
/** A row read for the hook: as the review shows it, and the values it is sent. */
type FirstRow = CheckedRow & { values: SentRow['values'] };
/** Checks not answered yet: a status and nothing to merge. */
type Checks = Checked | { status: CustomerChecksStatus; rows?: undefined };

interface Job {
  key: string;
  abort: AbortController;
  result: Promise<Checked | null>;
}

/** Finished checks kept (per run, mapping and fixes), and batch answers kept (per batch content). */
const RESULTS_KEPT = 50;
const BATCHES_KEPT = 2000;
/** Batches in flight at once to one hook. */
const CONCURRENT_BATCHES = 4;

const remember = <K, V>(map: Map<K, V>, key: K, value: V, max: number) => {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
};

/**
 * The customer's own checks of a run's rows: a schema's `validation_url` is sent the file's
 * first rows, mapped as the output will hold them, in batches; its findings join our problems.
 * Started by the review's first preview (and again after each mapping change or fix, as the
 * count is); kept in memory per run, mapping and fixes like the count, and each batch's answer
 * per batch content, so an edit sends again only the batch whose rows it changed. Nothing here
 * blocks the review: until the hook answers the page shows our problems alone, and a hook that
 * fails is a status the page states (approval stays possible).
 */
@Injectable()
export class CustomerChecks {
  private readonly logger = new Logger(CustomerChecks.name);
  private readonly finished = new Map<string, Checked>();
  private readonly running = new Map<string, Job>();
  private readonly batchAnswers = new Map<string, Findings>();
  private readonly settings: ValidationHookConfig;

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly client: ValidationHookClient,
    private readonly previews: ReviewPreviewService,
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

  /** A preview's rows (the file's first rows, in order) with the customer's findings, and the checks' status. */
  withPreview<P extends { rows: Record<string, ReviewCell>[] }>(run: RunState, mapping: unknown, preview: P) {
    const checks = this.peek(run, mapping);
    if (!checks) return preview;
    if (!checks.rows) return { ...preview, customer_checks: checks.status };
    const { rows, findings } = checks;
    return {
      ...preview,
      // The preview's rows are the file's first rows, in order: row i + 1.
      rows: preview.rows.map((cells, i) => withFindings(cells, findings.get(i + 1), rows[i]?.text)),
      customer_checks: checks.status,
    };
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
    const page = await pageWithFindings(checks.rows, checks.findings, query, query.kind === CUSTOMER_PROBLEM ? null : ownPage);
    return { ...page, customer_checks: checks.status };
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
    const failed = (rows: CheckedRow[], reason: CustomerChecksStatus['reason'], detail: string): Checked => ({
      status: { status: 'failed', rows_checked: 0, total_rows: run.total_rows, reason, detail },
      rows,
      findings: new Map(),
    });
    let rows: FirstRow[];
    let secret: string;
    try {
      const org = await this.directory.getOrganization(run.organization_id);
      if (!org) return failed([], 'error', 'the organization does not exist');
      secret = org.webhook_secret;
      rows = await this.firstRows(run, mapping, null);
    } catch (err) {
      this.logger.error(`Run ${run.id}: the rows for the customer's checks could not be read: ${(err as Error).message}`);
      return failed([], 'error', 'the rows could not be read');
    }
    const fields = Object.keys(run.schema.fields);
    const batches: SentRow[][] = [];
    for (let i = 0; i < rows.length; i += this.settings.batchRows) {
      batches.push(rows.slice(i, i + this.settings.batchRows).map((r) => ({ row: r.row, values: r.values })));
    }
    const findings: Findings = new Map();
    for (let i = 0; i < batches.length; i += CONCURRENT_BATCHES) {
      const outcomes = await Promise.all(
        batches.slice(i, i + CONCURRENT_BATCHES).map((batch) => this.sendBatch(run, url, secret, batch, fields, signal)),
      );
      if (superseded.aborted) return null;
      const failure = outcomes.find((o) => !o.ok);
      if (failure && !failure.ok) {
        // The URL is the customer's (its query may carry a token): the log names the run and the reason only.
        this.logger.warn(`Run ${run.id}: the customer's validation hook failed: ${failure.detail}`);
        return failed(rows, failure.reason, failure.detail);
      }
      for (const outcome of outcomes) if (outcome.ok) for (const [row, cells] of outcome.findings) findings.set(row, cells);
    }
    // Sent without waiting for the duplicates pass (values do not depend on it); merged with it, so
    // our own problems among the first rows are exactly those the count and the pages see.
    let shown: CheckedRow[];
    try {
      const duplicates = await this.previews.duplicateRows(run, mapping);
      shown = duplicates ? await this.firstRows(run, mapping, duplicates) : rows;
    } catch (err) {
      this.logger.error(`Run ${run.id}: the rows for the customer's checks could not be read: ${(err as Error).message}`);
      return failed([], 'error', 'the rows could not be read');
    }
    if (superseded.aborted) return null;
    return {
      status: { status: 'ran', rows_checked: rows.length, total_rows: run.total_rows, reason: null, detail: null },
      // What was sent is not kept: the cells and texts are what the review shows and fixes.
      rows: shown.map(({ row, cells, text }) => ({ row, cells, text })),
      findings,
    };
  }

  private async sendBatch(run: RunState, url: string, secret: string, rows: SentRow[], fields: string[], signal: AbortSignal) {
    // Per run: the customer's answer may depend on more than the rows (what it already holds, the run's context).
    const key = createHash('sha256').update(`${run.id}\n${url}\n`).update(JSON.stringify(rows)).digest('base64url');
    const known = this.batchAnswers.get(key);
    if (known) return { ok: true as const, findings: known };
    const outcome = await this.client.send(
      url,
      secret,
      { type: VALIDATE_EVENT, run_id: run.id, schema_id: run.schema.id, rows },
      fields,
      signal,
    );
    if (outcome.ok) remember(this.batchAnswers, key, outcome.findings, BATCHES_KEPT);
    return outcome;
  }

  /** The file's first rows as the output will hold them (typed for JSON output), with each field's text and our problems. */
  private async firstRows(run: RunState, mapping: MappingRule, duplicates: DuplicateRows | null): Promise<FirstRow[]> {
    const source = await readPlannedRows(this.blobs, run, mapping, duplicates);
    const typed = run.output_format === 'json';
    const rows: FirstRow[] = [];
    try {
      for await (const batch of source.batches) {
        for (const row of batch) {
          const number = rows.length + 1;
          const mapped = mapRow(row, number, source.plan, typed);
          const problems = new Map(mapped.problems.map((p) => [p.field, p.problem]));
          const cells: Record<string, ReviewCell> = {};
          const text: Record<string, string> = {};
          for (const p of source.plan) {
            const value = mapped.record[p.name];
            cells[p.name] = { value: value === null ? null : String(value), problem: problems.get(p.name) ?? null };
            text[p.name] = cellOf(p, row, number);
          }
          rows.push({ row: number, cells, text, values: mapped.record });
          if (rows.length >= this.settings.maxRows) return rows;
        }
      }
      return rows;
    } finally {
      await source.batches.return(undefined);
    }
  }
}

function normalizedMapping(run: RunState, mapping: unknown): MappingRule {
  // The preview or count asked first has refused a mapping with problems: what is left is valid.
  return normalizeMapping(mapping ?? run.mapping_rule ?? {}, Object.keys(run.schema.fields), run.source_headers).mapping;
}

/** What the checks are for: the run, its sheet and header choice, the mapping, the fixes in force and the hook. */
const checksKey = (run: RunState, mapping: MappingRule, url: string): string =>
  `${run.id}:${run.sheet ?? ''}:${run.input_has_header}:${mappingHash(mapping)}:${fixesKey(run.value_fixes ?? [])}:${url}`;
