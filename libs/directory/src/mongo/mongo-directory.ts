import mongoose, { type Connection, Schema } from 'mongoose';
import {
  type ApiKeyRecord,
  type ApiKeySummary,
  type Directory,
  type IdempotencyClaim,
  type IdempotencyRecord,
  idempotencyLockFree,
  type Organization,
  type Page,
  type ProviderRecord,
  type RememberedMapping,
  type SchemaRecord,
} from '../directory.port';
import { SECRET_CONTEXT, type SecretCipher, SecretUnreadable, type ReencryptReport } from '../secrets/secret-cipher';

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
    prefix: { type: String, default: null },
    name: { type: String, default: null },
    created_at: String,
    revoked_at: { type: String, default: null },
    last_used_at: { type: String, default: null },
  },
  { versionKey: false, strict: 'throw' },
);
apiKeySchema.index({ organization_id: 1, _id: 1 });
apiKeySchema.index({ organization_id: 1, created_at: 1 });

/*
 * Idempotency keys: one document per organization and key. `expire_at` (a Date, as TTL
 * indexes need) lets MongoDB delete expired ones; until it does, a claim treats them as absent.
 */
const idempotencySchema = new Schema(
  {
    organization_id: { type: String, required: true },
    key: { type: String, required: true },
    request_hash: { type: String, required: true },
    resource_id: { type: String, required: true },
    state: { type: String, required: true },
    lock_token: { type: String, default: null },
    locked_until: { type: String, default: null },
    lock_instance: { type: String, default: null },
    lock_incarnation: { type: String, default: null },
    response_status: { type: Number, default: null },
    response_body: { type: String, default: null },
    created_at: String,
    expires_at: String,
    expire_at: Date,
  },
  { versionKey: false, strict: 'throw' },
);
idempotencySchema.index({ organization_id: 1, key: 1 }, { unique: true });
idempotencySchema.index({ expire_at: 1 }, { expireAfterSeconds: 0 });

const isDuplicateKey = (err: unknown) => (err as { code?: number })?.code === 11000;

const idempotencyRecord = (row: Record<string, unknown>): IdempotencyRecord => {
  const { _id: _i, expire_at: _e, ...rest } = row;
  // Records from before holders were recorded have no lock_instance/lock_incarnation.
  return { lock_instance: null, lock_incarnation: null, ...rest } as unknown as IdempotencyRecord;
};

/*
 * Schema and provider documents keep their bodies as JSON text: their keys come from
 * customers (schema field names) and may hold '.' or start with '$', which MongoDB field
 * names must not. What is queried is copied to indexed top-level fields.
 */
const ownedSchema = () => {
  const s = new Schema(
    { _id: String, organization_id: { type: String, required: true }, created_at: String, doc: String },
    { versionKey: false, strict: 'throw' },
  );
  s.index({ organization_id: 1, created_at: 1, _id: 1 });
  return s;
};

/** One remembered mapping per organization, schema and headers (the `_id`); the body as JSON text (customers' names as keys). */
const rememberedSchema = new Schema(
  { _id: String, organization_id: { type: String, required: true }, schema_id: String, approved_at: String, doc: String },
  { versionKey: false, strict: 'throw' },
);
rememberedSchema.index({ organization_id: 1, schema_id: 1 });

/**
 * The directory on MongoDB.
 *
 * Its collections are those of the run read model's database (MONGO_URL), under the names
 * they had before the directory was a lib of its own: existing deployments keep their data
 * where it is, without a migration. The directory has a connection of its own to it.
 * consumeReviewPreparation uses a transaction (MongoDB transactions need a replica set; a
 * single-node one is enough, see docker-compose.yml).
 */
export class MongoDirectory implements Directory {
  private readonly organizations;
  private readonly quota;
  private readonly apiKeys;
  private readonly schemas;
  private readonly providers;
  private readonly idempotency;
  private readonly remembered;

  /** `secrets` seals webhook secrets and provider API keys (legacy plaintext values are read as they are). */
  private constructor(
    private readonly connection: Connection,
    private readonly secrets: SecretCipher,
  ) {
    this.organizations = connection.model('Organization', organizationSchema, 'organizations');
    this.quota = connection.model('QuotaConsumption', quotaSchema, 'quota_consumptions');
    this.apiKeys = connection.model('ApiKey', apiKeySchema, 'api_keys');
    this.schemas = connection.model('Schema', ownedSchema(), 'schemas');
    this.providers = connection.model('Provider', ownedSchema(), 'providers');
    this.idempotency = connection.model('IdempotencyKey', idempotencySchema, 'idempotency_keys');
    this.remembered = connection.model('RememberedMapping', rememberedSchema, 'remembered_mappings');
  }

  /** Connects and makes sure every collection and index exists (idempotent). */
  static async connect(url: string, secrets: SecretCipher, dbName?: string): Promise<MongoDirectory> {
    const connection = await mongoose
      .createConnection(url, { autoIndex: false, autoCreate: false, ...(dbName ? { dbName } : {}) })
      .asPromise();
    const directory = new MongoDirectory(connection, secrets);
    for (const m of Object.values(connection.models)) {
      await m.createCollection().catch((err: { codeName?: string }) => {
        if (err.codeName !== 'NamespaceExists') throw err;
      });
      await m.createIndexes();
    }
    return directory;
  }

  // ---- organizations and keys -------------------------------------------------------
  /** An organization as stored (webhook secret sealed) to what the service uses. */
  private org(row: Record<string, unknown> | null): Organization | null {
    if (!row) return null;
    const { _id, ...rest } = row;
    const org = { id: _id as string, ...rest } as Organization;
    return { ...org, webhook_secret: this.secrets.open(org.webhook_secret, SECRET_CONTEXT.webhookSecret(org.id)) };
  }

  async createOrganization(org: Organization): Promise<void> {
    const { id, ...rest } = org;
    await this.organizations.create({
      _id: id,
      ...rest,
      webhook_secret: this.secrets.seal(org.webhook_secret, SECRET_CONTEXT.webhookSecret(id)),
    });
  }

  async getOrganization(id: string): Promise<Organization | null> {
    return this.org(await this.organizations.findById(id).lean());
  }

  async updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'created_at'>>): Promise<Organization | null> {
    const { id: _i, created_at: _c, ...allowed } = patch as Partial<Organization>;
    if (allowed.webhook_secret !== undefined)
      allowed.webhook_secret = this.secrets.seal(allowed.webhook_secret, SECRET_CONTEXT.webhookSecret(id));
    const row = await this.organizations
      .findOneAndUpdate({ _id: id }, { $set: { ...allowed, updated_at: new Date().toISOString() } }, { returnDocument: 'after' })
      .lean();
    if (row && typeof row.webhook_secret === 'string') await this.resealWebhookSecret(id, row.webhook_secret);
    return this.org(row);
  }

  /**
   * Seals a webhook secret with the current key when it is legacy plaintext or sealed with a
   * previous key; only if it is still the value read (a concurrent rotation wins). True when it
   * was (or, in a dry run, would be) sealed again. An unreadable secret is left as it is,
   * unless `strict` (the operator's re-encryption), which reports it.
   */
  private async resealWebhookSecret(id: string, stored: string, options: { dryRun?: boolean; strict?: boolean } = {}): Promise<boolean> {
    if (!this.secrets.needsReseal(stored)) return false;
    const context = SECRET_CONTEXT.webhookSecret(id);
    let sealed: string;
    try {
      sealed = this.secrets.seal(this.secrets.open(stored, context), context);
    } catch (err) {
      if (err instanceof SecretUnreadable && !options.strict) return false; // reading it reports the problem
      throw err;
    }
    if (!options.dryRun) await this.organizations.updateOne({ _id: id, webhook_secret: stored }, { $set: { webhook_secret: sealed } });
    return true;
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
    return { prefix: null, ...rest, id: _id as string } as ApiKeyRecord;
  }

  async listApiKeys(organizationId: string): Promise<ApiKeySummary[]> {
    const rows = await this.apiKeys.find({ organization_id: organizationId }, { key_hash: 0 }).sort({ created_at: 1, _id: 1 }).lean();
    return rows.map((r) => ({
      id: r._id as string,
      organization_id: r.organization_id,
      prefix: r.prefix ?? null,
      name: r.name ?? null,
      created_at: r.created_at as string,
      revoked_at: r.revoked_at ?? null,
      last_used_at: r.last_used_at ?? null,
    }));
  }

  async touchApiKey(organizationId: string, keyId: string, at: string): Promise<void> {
    await this.apiKeys.updateOne(
      { _id: keyId, organization_id: organizationId, $or: [{ last_used_at: null }, { last_used_at: { $lt: at } }] },
      { $set: { last_used_at: at } },
    );
  }

  // ---- idempotency keys -------------------------------------------------------------
  async claimIdempotencyKey(candidate: IdempotencyRecord, now: string): Promise<IdempotencyClaim> {
    const id = { organization_id: candidate.organization_id, key: candidate.key };
    const doc = { ...candidate, expire_at: new Date(candidate.expires_at) };
    // Each step is one atomic write conditioned on what was read; a lost race reads again.
    for (let attempt = 1; ; attempt++) {
      const found = await this.idempotency.findOne(id).lean();
      const live = found ? idempotencyRecord(found) : null;
      // The claim or lock this record had when read: a conditional write fails if another claim changed it since.
      const unchanged = live ? { ...id, state: live.state, lock_token: live.lock_token } : null;
      if (!live) {
        try {
          await this.idempotency.create(doc);
          return { claimed: true, record: { ...candidate } };
        } catch (err) {
          if (!isDuplicateKey(err) || attempt >= 5) throw err;
          continue;
        }
      }
      if (live.expires_at <= now) {
        if ((await this.idempotency.replaceOne(unchanged!, doc)).modifiedCount === 1) return { claimed: true, record: { ...candidate } };
      } else if (live.state === 'pending' && live.request_hash === candidate.request_hash && idempotencyLockFree(live, candidate, now)) {
        const lock = {
          lock_token: candidate.lock_token,
          locked_until: candidate.locked_until,
          lock_instance: candidate.lock_instance,
          lock_incarnation: candidate.lock_incarnation,
        };
        const taken = await this.idempotency.updateOne(unchanged!, { $set: lock });
        if (taken.modifiedCount === 1) return { claimed: true, record: { ...live, ...lock } };
      } else {
        return { claimed: false, record: live };
      }
      if (attempt >= 5) throw new Error(`Idempotency key claim kept losing races (${candidate.organization_id})`);
    }
  }

  async completeIdempotencyKey(
    organizationId: string,
    key: string,
    lockToken: string,
    response: { status: number; body: string },
  ): Promise<boolean> {
    const r = await this.idempotency.updateOne(
      { organization_id: organizationId, key, state: 'pending', lock_token: lockToken },
      { $set: { state: 'completed', locked_until: null, response_status: response.status, response_body: response.body } },
    );
    return r.modifiedCount === 1;
  }

  async releaseIdempotencyKey(organizationId: string, key: string, lockToken: string, forget: boolean): Promise<void> {
    const filter = { organization_id: organizationId, key, state: 'pending', lock_token: lockToken };
    if (forget) await this.idempotency.deleteOne(filter);
    else await this.idempotency.updateOne(filter, { $set: { locked_until: null } });
  }

  // ---- schemas and providers --------------------------------------------------------
  async putSchema(schema: SchemaRecord): Promise<void> {
    await this.putOwned(this.schemas, schema, schema);
  }
  async getSchema(org: string, id: string): Promise<SchemaRecord | null> {
    return this.getOwned(this.schemas, org, id, (doc) => JSON.parse(doc) as SchemaRecord);
  }
  async listSchemas(org: string, offset: number, limit: number): Promise<Page<SchemaRecord>> {
    return this.listOwned(this.schemas, org, offset, limit, (doc) => JSON.parse(doc) as SchemaRecord);
  }
  /** Its remembered mappings go with it: they hold values from customers' files (picklists). */
  async deleteSchema(org: string, id: string): Promise<boolean> {
    await this.remembered.deleteMany({ organization_id: org, schema_id: id });
    return this.deleteOwned(this.schemas, org, id);
  }

  // Provider documents hold the API key sealed.
  private readonly openProvider = (doc: string): ProviderRecord => {
    const stored = JSON.parse(doc) as ProviderRecord;
    return { ...stored, api_key: this.secrets.openNullable(stored.api_key, SECRET_CONTEXT.providerApiKey(stored.id)) };
  };

  async putProvider(p: ProviderRecord): Promise<void> {
    await this.putOwned(this.providers, p, { ...p, api_key: this.secrets.sealNullable(p.api_key, SECRET_CONTEXT.providerApiKey(p.id)) });
  }
  async getProvider(org: string, id: string): Promise<ProviderRecord | null> {
    return this.getOwned(this.providers, org, id, this.openProvider);
  }
  async listProviders(org: string, offset: number, limit: number): Promise<Page<ProviderRecord>> {
    return this.listOwned(this.providers, org, offset, limit, this.openProvider);
  }
  async deleteProvider(org: string, id: string): Promise<boolean> {
    return this.deleteOwned(this.providers, org, id);
  }

  // ---- remembered mappings --------------------------------------------------------
  async rememberMapping(m: RememberedMapping): Promise<void> {
    const id = `${m.organization_id}:${m.schema_id}:${m.headers_key}`;
    try {
      // Replaces only an older approval: with a newer one kept, the filter misses, the upsert's insert
      // collides with the existing _id (E11000), and the newer one stays.
      await this.remembered.updateOne(
        { _id: id, approved_at: { $lte: m.approved_at } },
        { $set: { organization_id: m.organization_id, schema_id: m.schema_id, approved_at: m.approved_at, doc: JSON.stringify(m) } },
        { upsert: true },
      );
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }

  async findRememberedMapping(org: string, schemaId: string, headersKey: string): Promise<RememberedMapping | null> {
    const row = await this.remembered.findById(`${org}:${schemaId}:${headersKey}`).lean();
    return row?.doc ? (JSON.parse(row.doc) as RememberedMapping) : null;
  }

  /** `stored` is what is kept: the document, with its secrets sealed. */
  private async putOwned(
    model: MongoDirectory['schemas'],
    doc: { id: string; organization_id: string; created_at: string },
    stored: object,
  ): Promise<void> {
    await model.updateOne(
      { _id: doc.id },
      {
        $set: { doc: JSON.stringify(stored) },
        $setOnInsert: { organization_id: doc.organization_id, created_at: doc.created_at },
      },
      { upsert: true },
    );
  }

  private async getOwned<T>(model: MongoDirectory['schemas'], org: string, id: string, parse: (doc: string) => T): Promise<T | null> {
    const row = await model.findOne({ _id: id, organization_id: org }, { doc: 1 }).lean();
    return row?.doc ? parse(row.doc) : null;
  }

  private async listOwned<T>(
    model: MongoDirectory['schemas'],
    org: string,
    offset: number,
    limit: number,
    parse: (doc: string) => T,
  ): Promise<Page<T>> {
    const [total, rows] = await Promise.all([
      model.countDocuments({ organization_id: org }),
      model.find({ organization_id: org }, { doc: 1 }).sort({ created_at: 1, _id: 1 }).skip(offset).limit(limit).lean(),
    ]);
    return { items: rows.map((r) => parse(r.doc!)), total };
  }

  private async deleteOwned(model: MongoDirectory['schemas'], org: string, id: string): Promise<boolean> {
    return (await model.deleteOne({ _id: id, organization_id: org })).deletedCount === 1;
  }

  /**
   * Seals again, with the current key, every stored secret that is legacy plaintext or
   * sealed with a previous key. Each record is replaced only if it still holds the value
   * read. A dry run only counts (and checks that every such secret opens).
   */
  async reencryptSecrets(options: { dryRun?: boolean } = {}): Promise<ReencryptReport> {
    const report: ReencryptReport = { organizations: 0, providers: 0 };
    for await (const row of this.organizations.find({}, { webhook_secret: 1 }).lean().cursor()) {
      if (typeof row.webhook_secret !== 'string') continue;
      if (await this.resealWebhookSecret(row._id as string, row.webhook_secret, { dryRun: options.dryRun, strict: true })) {
        report.organizations++;
      }
    }
    for await (const row of this.providers.find({}, { doc: 1 }).lean().cursor()) {
      if (!row.doc) continue;
      const stored = JSON.parse(row.doc) as ProviderRecord;
      if (typeof stored.api_key !== 'string' || !this.secrets.needsReseal(stored.api_key)) continue;
      const context = SECRET_CONTEXT.providerApiKey(stored.id);
      const doc = JSON.stringify({ ...stored, api_key: this.secrets.seal(this.secrets.open(stored.api_key, context), context) });
      report.providers++;
      if (!options.dryRun) await this.providers.updateOne({ _id: row._id, doc: row.doc }, { $set: { doc } });
    }
    return report;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
