import mongoose, { type ClientSession, type Connection, Schema, type UpdateQuery } from 'mongoose';
import type { RunState } from '@app/domain';
import type { NamedCheckpoints, RunCount, RunListFilter, RunOutcome, RunReadModel, RunUsage } from '../read-model.port';
import { retentionColumns, runOutcome, uploadWatchUntil } from '../read-model.port';
import { runSearchTerms, searchQuery } from '../run-search';

/*
 * Documents keep the run body as JSON text: its keys come from customers (schema field
 * names, source headers) and may hold '.' or start with '$', which MongoDB field names
 * must not. What is queried is copied to indexed top-level fields.
 */
const runSchema = new Schema(
  {
    _id: String,
    organization_id: { type: String, required: true },
    revision: { type: Number, required: true },
    doc: { type: String, required: true },
    webhook_due_at: { type: String, default: null },
    upload_watch_until: { type: String, default: null },
    files_retained_until: { type: String, default: null },
    files_closed_at: { type: String, default: null },
    // Copied from the document on every save, for the run counts (documents saved before have none until their next save).
    status: { type: String, default: null },
    stage: { type: String, default: null },
    // Copied for the run list and usage (documents saved before have none until their next save).
    created_at: { type: String, default: null },
    input_source: { type: String, default: null },
    review_state: { type: String, default: null },
    review_expires_at: { type: String, default: null },
    processed_rows: { type: Number, default: 0 },
    /** The run search's terms (run-search.ts), for the list's text filter; filled at connect for older documents. */
    search_terms: { type: [String], default: undefined },
    /**
     * What releases before 2026-12-06 wrote instead: the lower-cased file name and metadata JSON. Read only for a
     * document without search_terms (written by such a release after this one connected); removed when it gets them.
     */
    search_text: { type: String },
  },
  { versionKey: false, strict: 'throw' },
);
runSchema.index({ organization_id: 1, _id: 1 });
runSchema.index({ webhook_due_at: 1 }, { partialFilterExpression: { webhook_due_at: { $type: 'string' } } });
runSchema.index({ upload_watch_until: 1 }, { partialFilterExpression: { upload_watch_until: { $type: 'string' } } });
runSchema.index({ files_retained_until: 1 }, { partialFilterExpression: { files_retained_until: { $type: 'string' } } });
runSchema.index({ files_closed_at: 1 }, { partialFilterExpression: { files_closed_at: { $type: 'string' } } });
runSchema.index({ status: 1, stage: 1 });
runSchema.index({ organization_id: 1, created_at: -1, _id: -1 });

const checkpointSchema = new Schema({ _id: String, position: { type: Number, required: true } }, { versionKey: false, strict: 'throw' });

/**
 * Run projections and projector checkpoints on MongoDB. The projector's checkpoint is
 * written in the same transaction as the document it applied (MongoDB transactions need a
 * replica set; a single-node one is enough, see docker-compose.yml). The directory
 * (libs/directory) keeps its collections in the same database, through a connection of its own.
 */
export class MongoReadModel implements RunReadModel {
  private readonly runs;
  private readonly checkpoints;
  private readonly consumerCheckpoints;

  private constructor(private readonly connection: Connection) {
    this.runs = connection.model('Run', runSchema, 'runs');
    this.checkpoints = connection.model('ProjectionCheckpoint', checkpointSchema, 'projection_checkpoints');
    this.consumerCheckpoints = connection.model('Checkpoint', checkpointSchema, 'checkpoints');
  }

  /** Connects and makes sure every collection and index exists (idempotent). */
  static async connect(url: string, dbName?: string): Promise<MongoReadModel> {
    const connection = await mongoose
      .createConnection(url, { autoIndex: false, autoCreate: false, ...(dbName ? { dbName } : {}) })
      .asPromise();
    const model = new MongoReadModel(connection);
    for (const m of Object.values(connection.models)) {
      await m.createCollection().catch((err: { codeName?: string }) => {
        if (err.codeName !== 'NamespaceExists') throw err;
      });
      await m.createIndexes();
    }
    await model.backfillRetention();
    await model.backfillSearchTerms();
    return model;
  }

  /**
   * Documents written before the retention columns existed get them from their own body
   * (once: saveRun always writes both fields, so afterwards nothing lacks them).
   */
  private async backfillRetention(): Promise<void> {
    await this.backfill('files_closed_at', (run) => ({ $set: retentionColumns(run) }));
  }

  /** Documents written before the search terms were stored get them from their own body, and lose the old search_text. */
  private async backfillSearchTerms(): Promise<void> {
    await this.backfill('search_terms', (run) => ({ $set: { search_terms: runSearchTerms(run) }, $unset: { search_text: 1 } }));
  }

  /** Updates each document that lacks `missing`, from its own body (saveRun always writes it, so each once). */
  private async backfill(missing: 'files_closed_at' | 'search_terms', update: (run: RunState) => UpdateQuery<unknown>): Promise<void> {
    const cursor = this.runs
      .find({ [missing]: { $exists: false } }, { doc: 1 })
      .lean()
      .cursor();
    for await (const row of cursor) {
      await this.runs.updateOne({ _id: row._id, [missing]: { $exists: false } }, update(JSON.parse(row.doc) as RunState));
    }
  }

  // ---- runs -------------------------------------------------------------------------
  async getRun(runId: string): Promise<RunState | null> {
    const row = await this.runs.findById(runId, { doc: 1 }).lean();
    return row ? (JSON.parse(row.doc) as RunState) : null;
  }

  /** Parsed on every read: a MongoDB round trip costs more than the parse a cache would save. */
  async getRunView(runId: string): Promise<Readonly<RunState> | null> {
    return this.getRun(runId);
  }

  /** A document already at a higher revision (another projector got there first) is kept; the checkpoint still moves. */
  async saveRun(run: RunState, checkpoint: { name: string; position: number }): Promise<void> {
    const fields = {
      organization_id: run.organization_id,
      revision: run.revision,
      doc: JSON.stringify(run),
      webhook_due_at: run.webhook_due_at ?? null,
      upload_watch_until: uploadWatchUntil(run),
      ...retentionColumns(run),
      status: run.status,
      stage: run.stage ?? null,
      created_at: run.created_at,
      input_source: run.input_source,
      review_state: run.review_state,
      review_expires_at: run.review_expires_at ?? null,
      processed_rows: run.processed_rows ?? 0,
      search_terms: runSearchTerms(run),
    };
    await this.connection.transaction(async (session) => {
      // Not an upsert on the revision filter: a newer stored document would make it insert a duplicate _id,
      // and a write error aborts the transaction.
      const updated = await this.runs.updateOne(
        { _id: run.id, revision: { $lte: run.revision } },
        { $set: fields, $unset: { search_text: 1 } },
        { session },
      );
      if (updated.matchedCount === 0 && !(await this.runs.exists({ _id: run.id }).session(session))) {
        await this.runs.create([{ _id: run.id, ...fields }], { session });
      }
      await this.writeCheckpoint(checkpoint.name, checkpoint.position, session);
    });
  }

  async listRuns(
    organizationId: string,
    filter: RunListFilter,
    offset: number,
    limit: number,
  ): Promise<{ items: RunState[]; total: number }> {
    const query: Record<string, unknown> = { organization_id: organizationId };
    for (const field of ['status', 'stage', 'input_source'] as const) if (filter[field] !== undefined) query[field] = filter[field];
    if (filter.review_state !== undefined) {
      // As the API shows it (effectiveReviewState): an active review past its deadline is expired. A document saved
      // before review_expires_at was copied has none until its next save, and counts as active.
      const now = filter.now ?? new Date().toISOString();
      if (filter.review_state === 'expired') Object.assign(query, { review_state: 'active', review_expires_at: { $lte: now } });
      else if (filter.review_state === 'active')
        Object.assign(query, { review_state: 'active', $or: [{ review_expires_at: null }, { review_expires_at: { $gt: now } }] });
      else query.review_state = filter.review_state;
    }
    if (filter.created_after !== undefined || filter.created_before !== undefined)
      query.created_at = {
        ...(filter.created_after !== undefined ? { $gte: filter.created_after } : {}),
        ...(filter.created_before !== undefined ? { $lte: filter.created_before } : {}),
      };
    if (filter.q) {
      // A literal substring of one term (a regex on a list matches any one of its members): the text is escaped, never
      // a pattern of the caller's. A document an earlier release wrote has its old search_text until it gets terms.
      // (A NUL is written \x00: MongoDB refuses a pattern that holds one, and a term may.)
      const text = {
        $regex: searchQuery(filter.q)
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\0/g, '\\x00'),
      };
      query.$and = [{ $or: [{ search_terms: text }, { search_terms: { $exists: false }, search_text: text }] }];
    }
    const [docs, total] = await Promise.all([
      this.runs.find(query, { doc: 1 }).sort({ created_at: -1, _id: -1 }).skip(offset).limit(limit).lean<{ doc: string }[]>(),
      this.runs.countDocuments(query),
    ]);
    return { items: docs.map((d) => JSON.parse(d.doc) as RunState), total };
  }

  async runUsage(organizationId: string, since: string): Promise<RunUsage> {
    const docs = await this.runs
      .find(
        { organization_id: organizationId, created_at: { $gte: since } },
        { created_at: 1, status: 1, stage: 1, review_state: 1, processed_rows: 1 },
      )
      .lean<{ created_at: string; status: string; stage: string | null; review_state: string | null; processed_rows?: number }[]>();
    const counts = new Map<string, number>();
    let rows = 0;
    for (const d of docs) {
      const key = `${d.created_at.slice(0, 10)}|${runOutcome(d as Parameters<typeof runOutcome>[0])}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      rows += d.processed_rows ?? 0;
    }
    const days = [...counts.entries()]
      .map(([key, count]) => {
        const [date, outcome] = key.split('|');
        return { date, outcome: outcome as RunOutcome, count };
      })
      .sort((a, b) => (a.date === b.date ? a.outcome.localeCompare(b.outcome) : a.date.localeCompare(b.date)));
    return { days, rows_processed: rows };
  }

  async countRunsByStatusAndStage(): Promise<RunCount[]> {
    const groups = await this.runs.aggregate<{ _id: { status: string | null; stage: string | null }; count: number }>([
      { $group: { _id: { status: '$status', stage: '$stage' }, count: { $sum: 1 } } },
    ]);
    return groups.filter((g) => g._id.status !== null).map((g) => ({ status: g._id.status!, stage: g._id.stage, count: g.count }));
  }

  async listDueWebhooks(now: string, limit: number): Promise<string[]> {
    const rows = await this.runs
      .find({ webhook_due_at: { $type: 'string', $lte: now } }, { _id: 1 })
      .sort({ webhook_due_at: 1 })
      .limit(limit)
      .lean();
    return rows.map((r) => r._id as string);
  }

  async listAwaitingUpload(since: string, limit: number): Promise<string[]> {
    const rows = await this.runs
      .find({ upload_watch_until: { $type: 'string', $gt: since } }, { _id: 1 })
      .sort({ upload_watch_until: 1 })
      .limit(limit)
      .lean();
    return rows.map((r) => r._id as string);
  }

  async listUploadsOverdue(now: string, limit: number): Promise<string[]> {
    const rows = await this.runs
      .find({ upload_watch_until: { $type: 'string', $lte: now } }, { _id: 1 })
      .sort({ upload_watch_until: 1, _id: 1 })
      .limit(limit)
      .lean();
    return rows.map((r) => r._id as string);
  }

  async listFilesToPurge(now: string, closedBefore: string, limit: number): Promise<string[]> {
    // Two indexed lookups rather than one $or: each uses its own partial index.
    const [retained, closed] = await Promise.all([
      this.runs
        .find({ files_retained_until: { $type: 'string', $lte: now } }, { _id: 1, files_retained_until: 1 })
        .sort({ files_retained_until: 1 })
        .limit(limit)
        .lean(),
      this.runs
        .find({ files_closed_at: { $type: 'string', $lte: closedBefore } }, { _id: 1, files_closed_at: 1 })
        .sort({ files_closed_at: 1 })
        .limit(limit)
        .lean(),
    ]);
    return [
      ...retained.map((r) => ({ id: r._id as string, due: r.files_retained_until as string })),
      ...closed.map((r) => ({ id: r._id as string, due: r.files_closed_at as string })),
    ]
      .sort((a, b) => (a.due === b.due ? (a.id < b.id ? -1 : 1) : a.due < b.due ? -1 : 1))
      .slice(0, limit)
      .map((r) => r.id);
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    await this.writeCheckpoint(name, position);
  }

  private async writeCheckpoint(name: string, position: number, session?: ClientSession): Promise<void> {
    // Never backwards: a rebuild writing documents beside the live projector must not undo its progress.
    await this.checkpoints.updateOne({ _id: name }, { $max: { position } }, { upsert: true, session });
  }

  async checkpoint(name: string): Promise<number> {
    return (await this.checkpoints.findById(name).lean())?.position ?? 0;
  }

  async deleteRun(runId: string): Promise<void> {
    await this.runs.deleteOne({ _id: runId });
  }

  async reset(name: string): Promise<void> {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await this.connection.transaction(async (session) => {
      await this.runs.deleteMany({}, { session });
      await this.checkpoints.deleteMany({ _id: { $regex: `^${escaped}(@.*)?$` } }, { session });
    });
  }

  /** Named positions of consumers and relays, in the same database. */
  checkpointStore(): NamedCheckpoints & { close(): Promise<void> } {
    const model = this.consumerCheckpoints;
    return {
      load: async (name) => (await model.findById(name).lean())?.position ?? 0,
      save: async (name, position) => {
        // Never backwards: a late or replayed save cannot undo a newer one.
        await model.updateOne({ _id: name }, { $max: { position } }, { upsert: true });
      },
      list: async () => Object.fromEntries((await model.find().lean()).map((r) => [r._id as string, r.position])),
      close: async () => undefined,
    };
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
