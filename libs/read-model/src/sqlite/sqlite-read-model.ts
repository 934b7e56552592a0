import type Database from 'better-sqlite3';
import { addMissingColumns, openSqlite, preparedStatements, readSnapshot, type PreparedStatements } from '@app/sqlite';
import type { RunState } from '@app/domain';
import type { RunCount, RunListFilter, RunOutcome, RunReadModel, RunUsage } from '../read-model.port';
import { retentionColumns, uploadWatchUntil } from '../read-model.port';
import { runSearchTerms, searchQuery } from '../run-search';

const MIGRATION = `
  CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, revision INTEGER NOT NULL, doc TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS runs_org ON runs (organization_id, id);
  CREATE TABLE IF NOT EXISTS projection_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
`;

/** Parsed run documents kept for display (getRunView): the runs being polled. */
const RUN_VIEWS_KEPT = 1_000;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Run projections and their checkpoints in one SQLite file (embedded mode). The directory
 * (libs/directory) keeps its tables in the same file, through a connection of its own.
 */
export class SqliteReadModel implements RunReadModel {
  private readonly db: Database.Database;
  private readonly getRunStmt;
  private readonly getRunViewStmt;
  /** Documents of runs read for display, each with the write it came from (getRunView). */
  private readonly views = new Map<string, { written: number; run: RunState }>();
  private readonly statement: PreparedStatements;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.statement = preparedStatements(this.db);
    // Deleted row content is zeroed in the pages SQLite writes anyway (no extra I/O), by this
    // connection as by the directory's, which shares the file (libs/directory).
    this.db.pragma('secure_delete = FAST');
    this.db.exec(MIGRATION);
    // Added after the first release: the notifier's schedule, the S3 upload watch, and when a run's
    // files are due for deletion (the sweeper; filled once from each document's body).
    const added = addMissingColumns(this.db, 'runs', {
      webhook_due_at: 'TEXT',
      upload_watch_until: 'TEXT',
      files_retained_until: 'TEXT',
      files_closed_at: 'TEXT',
    });
    if (added.includes('files_retained_until') || added.includes('files_closed_at')) this.backfillRetention();
    // Read from each document by SQLite itself (virtual: nothing to fill), indexed for the run counts.
    addMissingColumns(this.db, 'runs', {
      status: "TEXT GENERATED ALWAYS AS (json_extract(doc, '$.status')) VIRTUAL",
      stage: "TEXT GENERATED ALWAYS AS (json_extract(doc, '$.stage')) VIRTUAL",
    });
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_status_stage ON runs (status, stage)');
    // The run list and usage: an organization's runs by creation time (virtual columns, indexed).
    addMissingColumns(this.db, 'runs', {
      created_at: "TEXT GENERATED ALWAYS AS (json_extract(doc, '$.created_at')) VIRTUAL",
      input_source: "TEXT GENERATED ALWAYS AS (json_extract(doc, '$.input_source')) VIRTUAL",
      review_state: "TEXT GENERATED ALWAYS AS (json_extract(doc, '$.review_state')) VIRTUAL",
      review_expires_at: "TEXT GENERATED ALWAYS AS (json_extract(doc, '$.review_expires_at')) VIRTUAL",
    });
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_webhook_due ON runs (webhook_due_at) WHERE webhook_due_at IS NOT NULL');
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_upload_watch ON runs (upload_watch_until) WHERE upload_watch_until IS NOT NULL');
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_files_retained ON runs (files_retained_until) WHERE files_retained_until IS NOT NULL');
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_files_closed ON runs (files_closed_at) WHERE files_closed_at IS NOT NULL');
    // Counts the writes of each document: a document read for display is parsed again only when it changed.
    addMissingColumns(this.db, 'runs', { written: 'INTEGER NOT NULL DEFAULT 0' });
    // The run search's terms (run-search.ts), a JSON list written with the document; filled once for older documents.
    if (addMissingColumns(this.db, 'runs', { search_terms: 'TEXT' }).length > 0) this.backfillSearchTerms();
    // The run list's index (an organization's runs by creation time) also holds the search terms, so a search (`q`)
    // reads them from the index and goes to a run's row only for the runs it keeps. Stored after the document, the terms
    // read from the table walk every run's document first: 40,000 runs of 6 KB searched in about 0.22 s, from this index
    // in about 0.01 s (docs/decisions.md, "The run search"). It replaces the index without the terms.
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_org_created_terms ON runs (organization_id, created_at, id, search_terms)');
    this.db.exec('DROP INDEX IF EXISTS runs_org_created');
    this.getRunStmt = this.db.prepare<[string], { doc: string }>('SELECT doc FROM runs WHERE id = ?');
    // Read as [written, doc], not as an object: better-sqlite3 builds a row object name by name (findApiKey says more).
    this.getRunViewStmt = this.db
      .prepare<[number, string], [written: number, doc: string | null]>(
        'SELECT written, CASE WHEN written = ? THEN NULL ELSE doc END FROM runs WHERE id = ?',
      )
      .raw(true);
  }

  async countRunsByStatusAndStage(): Promise<RunCount[]> {
    return this.db.prepare<[], RunCount>('SELECT status, stage, COUNT(*) AS count FROM runs GROUP BY status, stage').all();
  }

  async listRuns(
    organizationId: string,
    filter: RunListFilter,
    offset: number,
    limit: number,
  ): Promise<{ items: RunState[]; total: number }> {
    const where = ['organization_id = @org'];
    const params: Record<string, string | number> = { org: organizationId, limit, offset };
    for (const column of ['status', 'stage', 'input_source'] as const) {
      if (filter[column] !== undefined) {
        where.push(`${column} = @${column}`);
        params[column] = filter[column]!;
      }
    }
    if (filter.review_state !== undefined) {
      // As the API shows it (effectiveReviewState): an active review past its deadline is expired.
      params.now = filter.now ?? new Date().toISOString();
      if (filter.review_state === 'expired') where.push("review_state = 'active' AND review_expires_at <= @now");
      else if (filter.review_state === 'active')
        where.push("review_state = 'active' AND (review_expires_at IS NULL OR review_expires_at > @now)");
      else {
        where.push('review_state = @review_state');
        params.review_state = filter.review_state;
      }
    }
    if (filter.created_after !== undefined) {
      where.push('created_at >= @after');
      params.after = filter.created_after;
    }
    if (filter.created_before !== undefined) {
      where.push('created_at <= @before');
      params.before = filter.created_before;
    }
    if (filter.q) {
      // The only filter not served by an index: it reads the organization's terms (after the others narrowed them).
      where.push('EXISTS (SELECT 1 FROM json_each(search_terms) WHERE instr(value, @q) > 0)');
      params.q = searchQuery(filter.q);
    }
    const clause = where.join(' AND ');
    const { total, rows } = readSnapshot(this.db, () => ({
      total: this.statement<[Record<string, string | number>], { n: number }>(`SELECT count(*) AS n FROM runs WHERE ${clause}`).get(params)!
        .n,
      rows: this.statement<[Record<string, string | number>], { doc: string }>(
        `SELECT doc FROM runs WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
      ).all(params),
    }));
    return { items: rows.map((r) => JSON.parse(r.doc) as RunState), total };
  }

  async runUsage(organizationId: string, since: string): Promise<RunUsage> {
    const rows = this.db
      .prepare<[string, string], { date: string; outcome: RunOutcome; count: number; rows: number }>(
        `SELECT substr(created_at, 1, 10) AS date,
           CASE WHEN status = 'failed' THEN 'failed'
                WHEN stage = 'final' AND status = 'completed' THEN 'finished'
                WHEN json_extract(doc, '$.review_state') = 'canceled' THEN 'canceled'
                ELSE 'other' END AS outcome,
           count(*) AS count, sum(coalesce(json_extract(doc, '$.processed_rows'), 0)) AS rows
         FROM runs WHERE organization_id = ? AND created_at >= ? GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all(organizationId, since);
    return {
      days: rows.map(({ date, outcome, count }) => ({ date, outcome, count })),
      rows_processed: rows.reduce((n, r) => n + r.rows, 0),
    };
  }

  /** Documents written before the search terms were stored get them once, from their own body. */
  private backfillSearchTerms(): void {
    const update = this.db.prepare('UPDATE runs SET search_terms = ? WHERE id = ?');
    this.forEachDocument((id, run) => update.run(JSON.stringify(runSearchTerms(run)), id));
  }

  /** Documents written before the retention columns existed get them once, from their own body. */
  private backfillRetention(): void {
    const update = this.db.prepare('UPDATE runs SET files_retained_until = ?, files_closed_at = ? WHERE id = ?');
    this.forEachDocument((id, run) => {
      const c = retentionColumns(run);
      if (c.files_retained_until || c.files_closed_at) update.run(c.files_retained_until, c.files_closed_at, id);
    });
  }

  /** Every stored document once, in one transaction (for a backfill). */
  private forEachDocument(visit: (id: string, run: RunState) => void): void {
    // In pages: better-sqlite3 cannot write while a query is being iterated.
    const page = this.db.prepare<[string], { id: string; doc: string }>('SELECT id, doc FROM runs WHERE id > ? ORDER BY id LIMIT 500');
    this.db.transaction(() => {
      for (let rows = page.all(''); rows.length > 0; rows = page.all(rows[rows.length - 1].id)) {
        for (const row of rows) visit(row.id, JSON.parse(row.doc) as RunState);
      }
    })();
  }

  // ---- runs -------------------------------------------------------------------------
  async getRun(runId: string): Promise<RunState | null> {
    const row = this.getRunStmt.get(runId);
    return row ? (JSON.parse(row.doc) as RunState) : null;
  }

  /**
   * A polled run is read thousands of times between two of its writes: the parsed document
   * is kept with the count of writes it came from, and SQLite hands the text over again
   * only when that count moved (another process may have written it). Frozen, since every
   * reader shares it.
   */
  async getRunView(runId: string): Promise<Readonly<RunState> | null> {
    const kept = this.views.get(runId);
    const row = this.getRunViewStmt.get(kept?.written ?? -1, runId);
    if (!row) return null;
    const [written, doc] = row;
    if (doc === null && kept) return kept.run;
    const run = deepFreeze(JSON.parse(doc!) as RunState);
    // Bounded: past RUN_VIEWS_KEPT, the run kept longest goes (a Map keeps insertion order).
    if (this.views.size >= RUN_VIEWS_KEPT && !this.views.has(runId)) this.views.delete(this.views.keys().next().value as string);
    this.views.set(runId, { written, run });
    return run;
  }

  /** A document already at a higher revision (another projector got there first) is kept; the checkpoint still moves. */
  async saveRun(run: RunState, checkpoint: { name: string; position: number }): Promise<void> {
    this.db.transaction(() => {
      const retention = retentionColumns(run);
      this.statement(
        // \`written\` starts anywhere (a document deleted and written again must not look unchanged) and counts up.
        `INSERT INTO runs (id, organization_id, revision, doc, webhook_due_at, upload_watch_until, files_retained_until, files_closed_at, search_terms, written)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, abs(random() % 1000000000000))
        ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, doc = excluded.doc, written = runs.written + 1,
          webhook_due_at = excluded.webhook_due_at, search_terms = excluded.search_terms,
          upload_watch_until = excluded.upload_watch_until, files_retained_until = excluded.files_retained_until,
          files_closed_at = excluded.files_closed_at
        WHERE excluded.revision >= runs.revision`,
      ).run(
        run.id,
        run.organization_id,
        run.revision,
        JSON.stringify(run),
        run.webhook_due_at ?? null,
        uploadWatchUntil(run),
        retention.files_retained_until,
        retention.files_closed_at,
        JSON.stringify(runSearchTerms(run)),
      );
      this.writeCheckpoint(checkpoint.name, checkpoint.position);
    })();
  }

  async listDueWebhooks(now: string, limit: number): Promise<string[]> {
    return this.statement<[string, number], { id: string }>(
      'SELECT id FROM runs WHERE webhook_due_at IS NOT NULL AND webhook_due_at <= ? ORDER BY webhook_due_at LIMIT ?',
    )
      .all(now, limit)
      .map((r) => r.id);
  }

  async listAwaitingUpload(since: string, limit: number): Promise<string[]> {
    return this.statement<[string, number], { id: string }>(
      'SELECT id FROM runs WHERE upload_watch_until IS NOT NULL AND upload_watch_until > ? ORDER BY upload_watch_until LIMIT ?',
    )
      .all(since, limit)
      .map((r) => r.id);
  }

  async listUploadsOverdue(now: string, limit: number): Promise<string[]> {
    return this.statement<[string, number], { id: string }>(
      'SELECT id FROM runs WHERE upload_watch_until IS NOT NULL AND upload_watch_until <= ? ORDER BY upload_watch_until, id LIMIT ?',
    )
      .all(now, limit)
      .map((r) => r.id);
  }

  async listFilesToPurge(now: string, closedBefore: string, limit: number): Promise<string[]> {
    return this.statement<[string, string, number], { id: string }>(
      `SELECT id FROM (
        SELECT id, files_retained_until AS due FROM runs WHERE files_retained_until IS NOT NULL AND files_retained_until <= ?
        UNION ALL
        SELECT id, files_closed_at AS due FROM runs WHERE files_closed_at IS NOT NULL AND files_closed_at <= ?
      ) ORDER BY due, id LIMIT ?`,
    )
      .all(now, closedBefore, limit)
      .map((r) => r.id);
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.writeCheckpoint(name, position);
  }

  private writeCheckpoint(name: string, position: number): void {
    // Never backwards: a rebuild writing documents beside the live projector must not undo its progress.
    this.statement(
      'INSERT INTO projection_checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = MAX(position, excluded.position)',
    ).run(name, position);
  }

  async checkpoint(name: string): Promise<number> {
    return (
      this.statement<[string], { position: number }>('SELECT position FROM projection_checkpoints WHERE name = ?').get(name)?.position ?? 0
    );
  }

  async deleteRun(runId: string): Promise<void> {
    this.statement('DELETE FROM runs WHERE id = ?').run(runId);
    this.views.delete(runId);
  }

  async reset(name: string): Promise<void> {
    this.db.transaction(() => {
      this.statement('DELETE FROM runs').run();
      this.statement("DELETE FROM projection_checkpoints WHERE name = ? OR substr(name, 1, length(?) + 1) = ? || '@'").run(
        name,
        name,
        name,
      );
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
