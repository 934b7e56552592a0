import type Database from 'better-sqlite3';
import { openSqlite } from '@app/event-store';
import type { RunState } from '@app/domain';
import type { ApiKeyRecord, Directory, Organization, Page, ProviderRecord, RunReadModel, SchemaRecord } from '../read-model.port';
import { uploadWatchUntil } from '../read-model.port';

const MIGRATION = `
  CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, revision INTEGER NOT NULL, doc TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS runs_org ON runs (organization_id, id);
  CREATE TABLE IF NOT EXISTS projection_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS organizations (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS quota_consumptions (run_id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, consumed_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL, revoked_at TEXT);
  CREATE TABLE IF NOT EXISTS schemas (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS schemas_org ON schemas (organization_id, created_at, id);
  CREATE TABLE IF NOT EXISTS providers (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS providers_org ON providers (organization_id, created_at, id);
`;

/** Run projections and the directory in one SQLite file (embedded mode). */
export class SqliteReadModel implements RunReadModel, Directory {
  private readonly db: Database.Database;
  private readonly getRunStmt;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(MIGRATION);
    // Added after the first release: the notifier's schedule, indexed.
    const columns = this.db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('runs')")
      .all()
      .map((c) => c.name);
    if (!columns.includes('webhook_due_at')) this.db.exec('ALTER TABLE runs ADD COLUMN webhook_due_at TEXT');
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_webhook_due ON runs (webhook_due_at) WHERE webhook_due_at IS NOT NULL');
    // Added with the S3 blob store: runs whose direct-to-bucket upload is looked for.
    if (!columns.includes('upload_watch_until')) this.db.exec('ALTER TABLE runs ADD COLUMN upload_watch_until TEXT');
    this.db.exec('CREATE INDEX IF NOT EXISTS runs_upload_watch ON runs (upload_watch_until) WHERE upload_watch_until IS NOT NULL');
    this.getRunStmt = this.db.prepare<[string], { doc: string }>('SELECT doc FROM runs WHERE id = ?');
  }

  /** Statements are prepared once and reused: preparing one cost more than the lookup it runs. */
  private statement<P extends unknown[] = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared as Database.Statement<P, R>;
  }

  // ---- runs -------------------------------------------------------------------------
  async getRun(runId: string): Promise<RunState | null> {
    const row = this.getRunStmt.get(runId);
    return row ? (JSON.parse(row.doc) as RunState) : null;
  }

  async saveRun(run: RunState, checkpoint: { name: string; position: number }): Promise<void> {
    this.db.transaction(() => {
      this.statement(
        `INSERT INTO runs (id, organization_id, revision, doc, webhook_due_at, upload_watch_until) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, doc = excluded.doc, webhook_due_at = excluded.webhook_due_at,
          upload_watch_until = excluded.upload_watch_until`,
      ).run(run.id, run.organization_id, run.revision, JSON.stringify(run), run.webhook_due_at ?? null, uploadWatchUntil(run));
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

  // ---- organizations and keys -------------------------------------------------------
  async createOrganization(org: Organization): Promise<void> {
    this.statement('INSERT INTO organizations (id, doc) VALUES (?, ?)').run(org.id, JSON.stringify(org));
  }

  async getOrganization(id: string): Promise<Organization | null> {
    const row = this.statement<[string], { doc: string }>('SELECT doc FROM organizations WHERE id = ?').get(id);
    return row ? (JSON.parse(row.doc) as Organization) : null;
  }

  async updateOrganization(id: string, patch: Partial<Organization>): Promise<Organization | null> {
    return this.db
      .transaction(() => {
        const row = this.statement<[string], { doc: string }>('SELECT doc FROM organizations WHERE id = ?').get(id);
        if (!row) return null;
        const next = { ...(JSON.parse(row.doc) as Organization), ...patch, id, updated_at: new Date().toISOString() };
        this.statement('UPDATE organizations SET doc = ? WHERE id = ?').run(JSON.stringify(next), id);
        return next;
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
        const next = { ...org, review_preparations_used: org.review_preparations_used + 1, updated_at: now };
        this.statement('UPDATE organizations SET doc = ? WHERE id = ?').run(JSON.stringify(next), organizationId);
        return 'consumed' as const;
      })
      .immediate();
  }

  async addApiKey(key: ApiKeyRecord): Promise<void> {
    this.statement('INSERT INTO api_keys (id, organization_id, key_hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)').run(
      key.id,
      key.organization_id,
      key.key_hash,
      key.created_at,
      key.revoked_at,
    );
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
    return this.statement<[string], ApiKeyRecord>('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL').get(keyHash) ?? null;
  }

  // ---- schemas and providers --------------------------------------------------------
  async putSchema(schema: SchemaRecord): Promise<void> {
    this.putOwned('schemas', schema);
  }
  async getSchema(org: string, id: string): Promise<SchemaRecord | null> {
    return this.getOwned('schemas', org, id);
  }
  async listSchemas(org: string, offset: number, limit: number): Promise<Page<SchemaRecord>> {
    return this.listOwned('schemas', org, offset, limit);
  }
  async deleteSchema(org: string, id: string): Promise<boolean> {
    return this.deleteOwned('schemas', org, id);
  }

  async putProvider(p: ProviderRecord): Promise<void> {
    this.putOwned('providers', p);
  }
  async getProvider(org: string, id: string): Promise<ProviderRecord | null> {
    return this.getOwned('providers', org, id);
  }
  async listProviders(org: string, offset: number, limit: number): Promise<Page<ProviderRecord>> {
    return this.listOwned('providers', org, offset, limit);
  }
  async deleteProvider(org: string, id: string): Promise<boolean> {
    return this.deleteOwned('providers', org, id);
  }

  private putOwned(table: 'schemas' | 'providers', doc: { id: string; organization_id: string; created_at: string }): void {
    this.statement(
      `INSERT INTO ${table} (id, organization_id, created_at, doc) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET doc = excluded.doc`,
    ).run(doc.id, doc.organization_id, doc.created_at, JSON.stringify(doc));
  }

  private getOwned<T>(table: 'schemas' | 'providers', org: string, id: string): T | null {
    const row = this.statement<[string, string], { doc: string }>(`SELECT doc FROM ${table} WHERE id = ? AND organization_id = ?`).get(
      id,
      org,
    );
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  private listOwned<T>(table: 'schemas' | 'providers', org: string, offset: number, limit: number): Page<T> {
    const total = this.statement<[string], { n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE organization_id = ?`).get(org)!.n;
    const rows = this.statement<[string, number, number], { doc: string }>(
      `SELECT doc FROM ${table} WHERE organization_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
    ).all(org, limit, offset);
    return { items: rows.map((r) => JSON.parse(r.doc) as T), total };
  }

  private deleteOwned(table: 'schemas' | 'providers', org: string, id: string): boolean {
    return this.statement(`DELETE FROM ${table} WHERE id = ? AND organization_id = ?`).run(id, org).changes === 1;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
