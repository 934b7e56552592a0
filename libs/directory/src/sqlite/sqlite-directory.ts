import type Database from 'better-sqlite3';
import { addMissingColumns, openSqlite, preparedStatements, readSnapshot, type PreparedStatements } from '@app/sqlite';
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

const MIGRATION = `
  CREATE TABLE IF NOT EXISTS organizations (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS quota_consumptions (run_id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, consumed_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL, revoked_at TEXT);
  CREATE TABLE IF NOT EXISTS schemas (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS schemas_org ON schemas (organization_id, created_at, id);
  CREATE TABLE IF NOT EXISTS remembered_mappings (
    organization_id TEXT NOT NULL, schema_id TEXT NOT NULL, headers_key TEXT NOT NULL, approved_at TEXT NOT NULL, doc TEXT NOT NULL,
    PRIMARY KEY (organization_id, schema_id, headers_key));
  CREATE TABLE IF NOT EXISTS providers (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS providers_org ON providers (organization_id, created_at, id);
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    organization_id TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, resource_id TEXT NOT NULL,
    state TEXT NOT NULL, lock_token TEXT, locked_until TEXT, response_status INTEGER, response_body TEXT,
    created_at TEXT NOT NULL, expires_at TEXT NOT NULL, PRIMARY KEY (organization_id, key));
  CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
`;

/** An api_keys row as values, in findApiKey's column order. */
type ApiKeyRow = [string, string, string, string | null, string, string | null, string | null];

/**
 * The directory in SQLite (embedded mode).
 *
 * Its tables live in the run read model's file (DATA_DIR/read-model.sqlite), where every
 * deployment from before the directory had a lib of its own keeps them: a file of their own
 * would need a migration of existing data. The directory opens its own connection to that
 * file; WAL lets it and the read model's connection (and other processes) share it.
 */
export class SqliteDirectory implements Directory {
  private readonly db: Database.Database;
  private readonly statement: PreparedStatements;

  /**
   * The directory's secrets (webhook secrets, provider API keys) are stored sealed by
   * `secrets`; values written before that are read as they are and sealed when their
   * record is next written (or by `secrets:reencrypt`).
   */
  constructor(
    file: string,
    private readonly secrets: SecretCipher,
  ) {
    this.db = openSqlite(file);
    this.statement = preparedStatements(this.db);
    // Deleted row content is zeroed in the pages SQLite writes anyway (no extra I/O): a secret
    // sealed over a legacy plaintext value leaves no readable copy in the page.
    this.db.pragma('secure_delete = FAST');
    this.db.exec(MIGRATION);
    // Added with key listing: the key's visible prefix (null for keys issued before), and the list's index.
    addMissingColumns(this.db, 'api_keys', { prefix: 'TEXT', last_used_at: 'TEXT', name: 'TEXT' });
    // Added with holder liveness: which process (instance, incarnation) holds a pending idempotency key.
    addMissingColumns(this.db, 'idempotency_keys', { lock_instance: 'TEXT', lock_incarnation: 'TEXT' });
    this.db.exec('CREATE INDEX IF NOT EXISTS api_keys_org ON api_keys (organization_id, created_at)');
    // Every API request reads its key: read as a row of values and built in findApiKey, because better-sqlite3
    // builds a row object name by name (each name made a V8 string again), which cost about as much as the look-up.
    this.liveKeyByHash = this.db
      .prepare<[string], ApiKeyRow>(
        'SELECT id, organization_id, key_hash, prefix, created_at, revoked_at, last_used_at FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
      )
      .raw(true);
  }

  private readonly liveKeyByHash: Database.Statement<[string], ApiKeyRow>;

  // ---- organizations and keys -------------------------------------------------------
  // Organization documents hold the webhook secret sealed.
  private openOrganization(doc: string): Organization {
    const stored = JSON.parse(doc) as Organization;
    return { ...stored, webhook_secret: this.secrets.open(stored.webhook_secret, SECRET_CONTEXT.webhookSecret(stored.id)) };
  }

  /** A stored secret as it should be written back: sealed with the current key when it was not (legacy or rotated-out key). */
  private refreshed(stored: string, context: string): string {
    if (typeof stored !== 'string' || !this.secrets.needsReseal(stored)) return stored;
    try {
      return this.secrets.seal(this.secrets.open(stored, context), context);
    } catch (err) {
      if (err instanceof SecretUnreadable) return stored; // left as it is; reading it reports the problem
      throw err;
    }
  }

  async createOrganization(org: Organization): Promise<void> {
    const stored = { ...org, webhook_secret: this.secrets.seal(org.webhook_secret, SECRET_CONTEXT.webhookSecret(org.id)) };
    this.statement('INSERT INTO organizations (id, doc) VALUES (?, ?)').run(org.id, JSON.stringify(stored));
  }

  async getOrganization(id: string): Promise<Organization | null> {
    const row = this.statement<[string], { doc: string }>('SELECT doc FROM organizations WHERE id = ?').get(id);
    return row ? this.openOrganization(row.doc) : null;
  }

  async updateOrganization(id: string, patch: Partial<Organization>): Promise<Organization | null> {
    return this.db
      .transaction(() => {
        const row = this.statement<[string], { doc: string }>('SELECT doc FROM organizations WHERE id = ?').get(id);
        if (!row) return null;
        const stored = JSON.parse(row.doc) as Organization;
        const context = SECRET_CONTEXT.webhookSecret(id);
        const webhookSecret =
          patch.webhook_secret !== undefined
            ? this.secrets.seal(patch.webhook_secret, context)
            : this.refreshed(stored.webhook_secret, context);
        const next = { ...stored, ...patch, id, webhook_secret: webhookSecret, updated_at: new Date().toISOString() };
        this.statement('UPDATE organizations SET doc = ? WHERE id = ?').run(JSON.stringify(next), id);
        return { ...next, webhook_secret: patch.webhook_secret ?? this.secrets.open(webhookSecret, context) };
      })
      .immediate();
  }

  async consumeReviewPreparation(organizationId: string, runId: string): Promise<'consumed' | 'already' | 'exhausted' | 'no_organization'> {
    // One IMMEDIATE transaction: the check, the per-run record and the counter move together.
    return this.db
      .transaction(() => {
        const row = this.statement<[string], { doc: string }>('SELECT doc FROM organizations WHERE id = ?').get(organizationId);
        if (!row) return 'no_organization' as const;
        if (this.statement('SELECT 1 FROM quota_consumptions WHERE run_id = ?').get(runId)) return 'already' as const;
        const org = JSON.parse(row.doc) as Organization;
        if (org.review_preparation_quota !== null && org.review_preparations_used >= org.review_preparation_quota)
          return 'exhausted' as const;
        const now = new Date().toISOString();
        this.statement('INSERT INTO quota_consumptions (run_id, organization_id, consumed_at) VALUES (?, ?, ?)').run(
          runId,
          organizationId,
          now,
        );
        const next = {
          ...org,
          webhook_secret: this.refreshed(org.webhook_secret, SECRET_CONTEXT.webhookSecret(organizationId)),
          review_preparations_used: org.review_preparations_used + 1,
          updated_at: now,
        };
        this.statement('UPDATE organizations SET doc = ? WHERE id = ?').run(JSON.stringify(next), organizationId);
        return 'consumed' as const;
      })
      .immediate();
  }

  async addApiKey(key: ApiKeyRecord): Promise<void> {
    this.statement(
      'INSERT INTO api_keys (id, organization_id, key_hash, prefix, name, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(key.id, key.organization_id, key.key_hash, key.prefix, key.name ?? null, key.created_at, key.revoked_at);
  }

  async listApiKeys(organizationId: string): Promise<ApiKeySummary[]> {
    return this.statement<[string], ApiKeySummary>(
      'SELECT id, organization_id, prefix, name, created_at, revoked_at, last_used_at FROM api_keys WHERE organization_id = ? ORDER BY created_at, rowid',
    ).all(organizationId);
  }

  async touchApiKey(organizationId: string, keyId: string, at: string): Promise<void> {
    this.statement(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND organization_id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    ).run(at, keyId, organizationId, at);
  }

  async revokeApiKey(organizationId: string, keyId: string, at: string): Promise<boolean> {
    const r = this.statement('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND organization_id = ? AND revoked_at IS NULL').run(
      at,
      keyId,
      organizationId,
    );
    return r.changes === 1;
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.liveKeyByHash.get(keyHash);
    if (!row) return null;
    const [id, organization_id, key_hash, prefix, created_at, revoked_at, last_used_at] = row;
    return { id, organization_id, key_hash, prefix, created_at, revoked_at, last_used_at };
  }

  // ---- idempotency keys -------------------------------------------------------------
  async claimIdempotencyKey(candidate: IdempotencyRecord, now: string): Promise<IdempotencyClaim> {
    // One IMMEDIATE transaction: the look-up and the write cannot interleave with another claim.
    return this.db
      .transaction((): IdempotencyClaim => {
        // Expired records go first (indexed): a key lives 24 hours, whoever uses it next.
        this.statement('DELETE FROM idempotency_keys WHERE expires_at <= ?').run(now);
        const live = this.statement<[string, string], IdempotencyRecord>(
          'SELECT * FROM idempotency_keys WHERE organization_id = ? AND key = ?',
        ).get(candidate.organization_id, candidate.key);
        if (!live) {
          this.statement(
            `INSERT INTO idempotency_keys (organization_id, key, request_hash, resource_id, state, lock_token, locked_until,
              lock_instance, lock_incarnation, response_status, response_body, created_at, expires_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            candidate.organization_id,
            candidate.key,
            candidate.request_hash,
            candidate.resource_id,
            candidate.state,
            candidate.lock_token,
            candidate.locked_until,
            candidate.lock_instance,
            candidate.lock_incarnation,
            candidate.response_status,
            candidate.response_body,
            candidate.created_at,
            candidate.expires_at,
          );
          return { claimed: true, record: { ...candidate } };
        }
        if (live.state === 'pending' && live.request_hash === candidate.request_hash && idempotencyLockFree(live, candidate, now)) {
          const lock = {
            lock_token: candidate.lock_token,
            locked_until: candidate.locked_until,
            lock_instance: candidate.lock_instance,
            lock_incarnation: candidate.lock_incarnation,
          };
          this.statement(
            `UPDATE idempotency_keys SET lock_token = ?, locked_until = ?, lock_instance = ?, lock_incarnation = ?
              WHERE organization_id = ? AND key = ?`,
          ).run(lock.lock_token, lock.locked_until, lock.lock_instance, lock.lock_incarnation, live.organization_id, live.key);
          return { claimed: true, record: { ...live, ...lock } };
        }
        return { claimed: false, record: live };
      })
      .immediate();
  }

  async completeIdempotencyKey(
    organizationId: string,
    key: string,
    lockToken: string,
    response: { status: number; body: string },
  ): Promise<boolean> {
    const r = this.statement(
      `UPDATE idempotency_keys SET state = 'completed', locked_until = NULL, response_status = ?, response_body = ?
        WHERE organization_id = ? AND key = ? AND state = 'pending' AND lock_token = ?`,
    ).run(response.status, response.body, organizationId, key, lockToken);
    return r.changes === 1;
  }

  async releaseIdempotencyKey(organizationId: string, key: string, lockToken: string, forget: boolean): Promise<void> {
    const where = "WHERE organization_id = ? AND key = ? AND state = 'pending' AND lock_token = ?";
    if (forget) this.statement(`DELETE FROM idempotency_keys ${where}`).run(organizationId, key, lockToken);
    else this.statement(`UPDATE idempotency_keys SET locked_until = NULL ${where}`).run(organizationId, key, lockToken);
  }

  // ---- schemas and providers --------------------------------------------------------
  async putSchema(schema: SchemaRecord): Promise<void> {
    this.putOwned('schemas', schema, JSON.stringify(schema));
  }
  async getSchema(org: string, id: string): Promise<SchemaRecord | null> {
    return this.getOwned('schemas', org, id, (doc) => JSON.parse(doc) as SchemaRecord);
  }
  async listSchemas(org: string, offset: number, limit: number): Promise<Page<SchemaRecord>> {
    return this.listOwned('schemas', org, offset, limit, (doc) => JSON.parse(doc) as SchemaRecord);
  }
  /** Its remembered mappings go with it: they hold values from customers' files (picklists). */
  async deleteSchema(org: string, id: string): Promise<boolean> {
    this.statement('DELETE FROM remembered_mappings WHERE organization_id = ? AND schema_id = ?').run(org, id);
    return this.deleteOwned('schemas', org, id);
  }

  // Provider documents hold the API key sealed.
  private readonly openProvider = (doc: string): ProviderRecord => {
    const stored = JSON.parse(doc) as ProviderRecord;
    return { ...stored, api_key: this.secrets.openNullable(stored.api_key, SECRET_CONTEXT.providerApiKey(stored.id)) };
  };

  async putProvider(p: ProviderRecord): Promise<void> {
    const stored = { ...p, api_key: this.secrets.sealNullable(p.api_key, SECRET_CONTEXT.providerApiKey(p.id)) };
    this.putOwned('providers', p, JSON.stringify(stored));
  }
  async getProvider(org: string, id: string): Promise<ProviderRecord | null> {
    return this.getOwned('providers', org, id, this.openProvider);
  }
  async listProviders(org: string, offset: number, limit: number): Promise<Page<ProviderRecord>> {
    return this.listOwned('providers', org, offset, limit, this.openProvider);
  }
  async deleteProvider(org: string, id: string): Promise<boolean> {
    return this.deleteOwned('providers', org, id);
  }

  // ---- remembered mappings --------------------------------------------------------
  async rememberMapping(m: RememberedMapping): Promise<void> {
    this.statement(
      `INSERT INTO remembered_mappings (organization_id, schema_id, headers_key, approved_at, doc) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (organization_id, schema_id, headers_key) DO UPDATE SET approved_at = excluded.approved_at, doc = excluded.doc
      WHERE excluded.approved_at >= remembered_mappings.approved_at`,
    ).run(m.organization_id, m.schema_id, m.headers_key, m.approved_at, JSON.stringify(m));
  }

  async findRememberedMapping(org: string, schemaId: string, headersKey: string): Promise<RememberedMapping | null> {
    const row = this.statement<[string, string, string], { doc: string }>(
      'SELECT doc FROM remembered_mappings WHERE organization_id = ? AND schema_id = ? AND headers_key = ?',
    ).get(org, schemaId, headersKey);
    return row ? (JSON.parse(row.doc) as RememberedMapping) : null;
  }

  /** `json` is what is stored: the document, with its secrets sealed. */
  private putOwned(table: 'schemas' | 'providers', doc: { id: string; organization_id: string; created_at: string }, json: string): void {
    this.statement(
      `INSERT INTO ${table} (id, organization_id, created_at, doc) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET doc = excluded.doc`,
    ).run(doc.id, doc.organization_id, doc.created_at, json);
  }

  private getOwned<T>(table: 'schemas' | 'providers', org: string, id: string, parse: (doc: string) => T): T | null {
    const row = this.statement<[string, string], { doc: string }>(`SELECT doc FROM ${table} WHERE id = ? AND organization_id = ?`).get(
      id,
      org,
    );
    return row ? parse(row.doc) : null;
  }

  private listOwned<T>(table: 'schemas' | 'providers', org: string, offset: number, limit: number, parse: (doc: string) => T): Page<T> {
    const { total, rows } = readSnapshot(this.db, () => ({
      total: this.statement<[string], { n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE organization_id = ?`).get(org)!.n,
      rows: this.statement<[string, number, number], { doc: string }>(
        `SELECT doc FROM ${table} WHERE organization_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
      ).all(org, limit, offset),
    }));
    return { items: rows.map((r) => parse(r.doc)), total };
  }

  private deleteOwned(table: 'schemas' | 'providers', org: string, id: string): boolean {
    return this.statement(`DELETE FROM ${table} WHERE id = ? AND organization_id = ?`).run(id, org).changes === 1;
  }

  // ---- secrets at rest ---------------------------------------------------------------
  /**
   * Seals again, with the current key, every stored secret that is legacy plaintext or
   * sealed with a previous key (after a rotation, before SECRETS_KEY_PREVIOUS is dropped).
   * One transaction; deleted content is zeroed and the WAL checkpointed into the file, so
   * no old form stays readable in the database files. A dry run only counts.
   */
  async reencryptSecrets(options: { dryRun?: boolean } = {}): Promise<ReencryptReport> {
    const report: ReencryptReport = { organizations: 0, providers: 0 };
    const reseal = (table: 'organizations' | 'providers', field: 'webhook_secret' | 'api_key', context: (id: string) => string) => {
      for (const row of this.db.prepare<[], { id: string; doc: string }>(`SELECT id, doc FROM ${table}`).all()) {
        const stored = JSON.parse(row.doc) as Record<string, unknown>;
        const value = stored[field];
        if (typeof value !== 'string' || !this.secrets.needsReseal(value)) continue;
        const sealed = this.secrets.seal(this.secrets.open(value, context(row.id)), context(row.id));
        report[table]++;
        if (!options.dryRun)
          this.db.prepare(`UPDATE ${table} SET doc = ? WHERE id = ?`).run(JSON.stringify({ ...stored, [field]: sealed }), row.id);
      }
    };
    this.db.pragma('secure_delete = ON');
    try {
      this.db
        .transaction(() => {
          reseal('organizations', 'webhook_secret', SECRET_CONTEXT.webhookSecret);
          reseal('providers', 'api_key', SECRET_CONTEXT.providerApiKey);
        })
        .immediate();
    } finally {
      this.db.pragma('secure_delete = FAST');
    }
    if (!options.dryRun) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return report;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
