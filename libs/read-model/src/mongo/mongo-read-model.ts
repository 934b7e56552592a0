import mongoose, { type ClientSession, type Connection, Schema } from 'mongoose';
import type { RunState } from '@app/domain';
import type { CheckpointStore } from '@app/event-store';
import type { ApiKeyRecord, Directory, Organization, Page, ProviderRecord, RunReadModel, SchemaRecord } from '../read-model.port';
import { uploadWatchUntil } from '../read-model.port';

/*
 * Documents keep the run, schema and provider bodies as JSON text: their keys come from
 * customers (schema field names, source headers) and may hold '.' or start with '$',
 * which MongoDB field names must not. What is queried is copied to indexed top-level fields.
 */
const runSchema = new Schema(
  {
    _id: String,
    organization_id: { type: String, required: true },
    revision: { type: Number, required: true },
    doc: { type: String, required: true },
    webhook_due_at: { type: String, default: null },
    upload_watch_until: { type: String, default: null },
  },
  { versionKey: false, strict: 'throw' },
);
runSchema.index({ organization_id: 1, _id: 1 });
runSchema.index({ webhook_due_at: 1 }, { partialFilterExpression: { webhook_due_at: { $type: 'string' } } });
runSchema.index({ upload_watch_until: 1 }, { partialFilterExpression: { upload_watch_until: { $type: 'string' } } });

const checkpointSchema = new Schema({ _id: String, position: { type: Number, required: true } }, { versionKey: false, strict: 'throw' });

const organizationSchema = new Schema(
  {
    _id: String,
    name: String,
    webhook_url: { type: String, default: null },
    webhook_secret: String,
    review_preparation_quota: { type: Number, default: null },
    review_preparations_used: Number,
    created_at: String,
    updated_at: String,
  },
  { versionKey: false, strict: 'throw' },
);

const quotaSchema = new Schema({ _id: String, organization_id: String, consumed_at: String }, { versionKey: false, strict: 'throw' });

const apiKeySchema = new Schema(
  {
    _id: String,
    organization_id: { type: String, required: true },
    key_hash: { type: String, required: true, unique: true },
    created_at: String,
    revoked_at: { type: String, default: null },
  },
  { versionKey: false, strict: 'throw' },
);
apiKeySchema.index({ organization_id: 1, _id: 1 });

const ownedSchema = () => {
  const s = new Schema(
    { _id: String, organization_id: { type: String, required: true }, created_at: String, doc: String },
    { versionKey: false, strict: 'throw' },
  );
  s.index({ organization_id: 1, created_at: 1, _id: 1 });
  return s;
};

/**
 * Run projections, projector checkpoints and the directory on MongoDB. The projector's
 * checkpoint is written in the same transaction as the document it applied (MongoDB
 * transactions need a replica set; a single-node one is enough, see docker-compose.yml).
 */
export class MongoReadModel implements RunReadModel, Directory {
  private readonly runs;
  private readonly checkpoints;
  private readonly organizations;
  private readonly quota;
  private readonly apiKeys;
  private readonly schemas;
  private readonly providers;
  private readonly consumerCheckpoints;

  private constructor(private readonly connection: Connection) {
    this.runs = connection.model('Run', runSchema, 'runs');
    this.checkpoints = connection.model('ProjectionCheckpoint', checkpointSchema, 'projection_checkpoints');
    this.organizations = connection.model('Organization', organizationSchema, 'organizations');
    this.quota = connection.model('QuotaConsumption', quotaSchema, 'quota_consumptions');
    this.apiKeys = connection.model('ApiKey', apiKeySchema, 'api_keys');
    this.schemas = connection.model('Schema', ownedSchema(), 'schemas');
    this.providers = connection.model('Provider', ownedSchema(), 'providers');
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
    return model;
  }

  // ---- runs -------------------------------------------------------------------------
  async getRun(runId: string): Promise<RunState | null> {
    const row = await this.runs.findById(runId, { doc: 1 }).lean();
    return row ? (JSON.parse(row.doc) as RunState) : null;
  }

  async saveRun(run: RunState, checkpoint: { name: string; position: number }): Promise<void> {
    await this.connection.transaction(async (session) => {
      await this.runs.updateOne(
        { _id: run.id },
        {
          $set: {
            organization_id: run.organization_id,
            revision: run.revision,
            doc: JSON.stringify(run),
            webhook_due_at: run.webhook_due_at ?? null,
            upload_watch_until: uploadWatchUntil(run),
          },
        },
        { upsert: true, session },
      );
      await this.writeCheckpoint(checkpoint.name, checkpoint.position, session);
    });
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

  async reset(name: string): Promise<void> {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await this.connection.transaction(async (session) => {
      await this.runs.deleteMany({}, { session });
      await this.checkpoints.deleteMany({ _id: { $regex: `^${escaped}(@.*)?$` } }, { session });
    });
  }

  // ---- organizations and keys -------------------------------------------------------
  private static org(row: Record<string, unknown> | null): Organization | null {
    if (!row) return null;
    const { _id, ...rest } = row;
    return { id: _id as string, ...rest } as Organization;
  }

  async createOrganization(org: Organization): Promise<void> {
    const { id, ...rest } = org;
    await this.organizations.create({ _id: id, ...rest });
  }

  async getOrganization(id: string): Promise<Organization | null> {
    return MongoReadModel.org(await this.organizations.findById(id).lean());
  }

  async updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'created_at'>>): Promise<Organization | null> {
    const { id: _i, created_at: _c, ...allowed } = patch as Partial<Organization>;
    const row = await this.organizations
      .findOneAndUpdate({ _id: id }, { $set: { ...allowed, updated_at: new Date().toISOString() } }, { returnDocument: 'after' })
      .lean();
    return MongoReadModel.org(row);
  }

  async consumeReviewPreparation(organizationId: string, runId: string): Promise<'consumed' | 'already' | 'exhausted' | 'no_organization'> {
    // One transaction: the check, the per-run record and the counter move together.
    return this.connection.transaction(async (session) => {
      const org = await this.organizations.findById(organizationId, null, { session }).lean();
      if (!org) return 'no_organization' as const;
      if (await this.quota.exists({ _id: runId }).session(session)) return 'already' as const;
      if (
        org.review_preparation_quota !== null &&
        org.review_preparation_quota !== undefined &&
        (org.review_preparations_used ?? 0) >= org.review_preparation_quota
      )
        return 'exhausted' as const;
      const now = new Date().toISOString();
      await this.quota.create([{ _id: runId, organization_id: organizationId, consumed_at: now }], { session });
      await this.organizations.updateOne(
        { _id: organizationId },
        { $inc: { review_preparations_used: 1 }, $set: { updated_at: now } },
        { session },
      );
      return 'consumed' as const;
    });
  }

  async addApiKey(key: ApiKeyRecord): Promise<void> {
    const { id, ...rest } = key;
    await this.apiKeys.create({ _id: id, ...rest });
  }

  async revokeApiKey(organizationId: string, keyId: string, at: string): Promise<boolean> {
    const r = await this.apiKeys.updateOne({ _id: keyId, organization_id: organizationId, revoked_at: null }, { $set: { revoked_at: at } });
    return r.modifiedCount === 1;
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.apiKeys.findOne({ key_hash: keyHash, revoked_at: null }).lean();
    if (!row) return null;
    const { _id, ...rest } = row;
    return { id: _id as string, ...rest } as ApiKeyRecord;
  }

  // ---- schemas and providers --------------------------------------------------------
  async putSchema(schema: SchemaRecord): Promise<void> {
    await this.putOwned(this.schemas, schema);
  }
  async getSchema(org: string, id: string): Promise<SchemaRecord | null> {
    return this.getOwned(this.schemas, org, id);
  }
  async listSchemas(org: string, offset: number, limit: number): Promise<Page<SchemaRecord>> {
    return this.listOwned(this.schemas, org, offset, limit);
  }
  async deleteSchema(org: string, id: string): Promise<boolean> {
    return this.deleteOwned(this.schemas, org, id);
  }

  async putProvider(p: ProviderRecord): Promise<void> {
    await this.putOwned(this.providers, p);
  }
  async getProvider(org: string, id: string): Promise<ProviderRecord | null> {
    return this.getOwned(this.providers, org, id);
  }
  async listProviders(org: string, offset: number, limit: number): Promise<Page<ProviderRecord>> {
    return this.listOwned(this.providers, org, offset, limit);
  }
  async deleteProvider(org: string, id: string): Promise<boolean> {
    return this.deleteOwned(this.providers, org, id);
  }

  private async putOwned(
    model: MongoReadModel['schemas'],
    doc: { id: string; organization_id: string; created_at: string },
  ): Promise<void> {
    await model.updateOne(
      { _id: doc.id },
      {
        $set: { doc: JSON.stringify(doc) },
        $setOnInsert: { organization_id: doc.organization_id, created_at: doc.created_at },
      },
      { upsert: true },
    );
  }

  private async getOwned<T>(model: MongoReadModel['schemas'], org: string, id: string): Promise<T | null> {
    const row = await model.findOne({ _id: id, organization_id: org }, { doc: 1 }).lean();
    return row?.doc ? (JSON.parse(row.doc) as T) : null;
  }

  private async listOwned<T>(model: MongoReadModel['schemas'], org: string, offset: number, limit: number): Promise<Page<T>> {
    const [total, rows] = await Promise.all([
      model.countDocuments({ organization_id: org }),
      model.find({ organization_id: org }, { doc: 1 }).sort({ created_at: 1, _id: 1 }).skip(offset).limit(limit).lean(),
    ]);
    return { items: rows.map((r) => JSON.parse(r.doc!) as T), total };
  }

  private async deleteOwned(model: MongoReadModel['schemas'], org: string, id: string): Promise<boolean> {
    return (await model.deleteOne({ _id: id, organization_id: org })).deletedCount === 1;
  }

  /** Named positions of consumers and relays, in the same database. */
  checkpointStore(): CheckpointStore & { close(): Promise<void> } {
    const model = this.consumerCheckpoints;
    return {
      load: async (name) => (await model.findById(name).lean())?.position ?? 0,
      save: async (name, position) => {
        await model.updateOne({ _id: name }, { $set: { position } }, { upsert: true });
      },
      list: async () => Object.fromEntries((await model.find().lean()).map((r) => [r._id as string, r.position])),
      close: async () => undefined,
    };
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
