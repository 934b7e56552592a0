import type Database from 'better-sqlite3';
import { openSqlite, readSnapshot } from '@app/sqlite';
import type { DeliveryAttemptEntry, DeliveryLog, DeliveryLogQuery } from '../delivery-log.port';

const MIGRATION = `
  CREATE TABLE IF NOT EXISTS webhook_delivery_attempts (
    id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, run_id TEXT NOT NULL, delivery_id TEXT NOT NULL, event TEXT NOT NULL,
    url TEXT, attempt INTEGER NOT NULL, outcome TEXT NOT NULL, status_code INTEGER, error TEXT, duration_ms INTEGER,
    response_excerpt TEXT, sent_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS webhook_delivery_attempts_org ON webhook_delivery_attempts (organization_id, sent_at DESC, id DESC);
  CREATE INDEX IF NOT EXISTS webhook_delivery_attempts_org_event
    ON webhook_delivery_attempts (organization_id, event, outcome, sent_at DESC, id DESC);
`;

const COLUMNS = [
  'id',
  'organization_id',
  'run_id',
  'delivery_id',
  'event',
  'url',
  'attempt',
  'outcome',
  'status_code',
  'error',
  'duration_ms',
  'response_excerpt',
  'sent_at',
] as const;

/** The delivery log in the embedded read model's file (a table of its own, through a connection of its own). */
export class SqliteDeliveryLog implements DeliveryLog {
  private readonly db: Database.Database;
  private readonly insert;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(MIGRATION);
    this.insert = this.db.prepare(
      `INSERT INTO webhook_delivery_attempts (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})
       ON CONFLICT(id) DO NOTHING`,
    );
  }

  async record(entry: DeliveryAttemptEntry): Promise<void> {
    this.insert.run(Object.fromEntries(COLUMNS.map((c) => [c, entry[c]])));
  }

  async list(organizationId: string, query: DeliveryLogQuery): Promise<{ items: DeliveryAttemptEntry[]; total: number }> {
    const where = ['organization_id = @organizationId'];
    if (query.event) where.push('event = @event');
    if (query.outcome) where.push('outcome = @outcome');
    const params = { organizationId, event: query.event ?? null, outcome: query.outcome ?? null, limit: query.limit, offset: query.offset };
    const clause = where.join(' AND ');
    return readSnapshot(this.db, () => ({
      total: this.db
        .prepare<typeof params, { total: number }>(`SELECT COUNT(*) AS total FROM webhook_delivery_attempts WHERE ${clause}`)
        .get(params)!.total,
      items: this.db
        .prepare<typeof params, DeliveryAttemptEntry>(
          `SELECT ${COLUMNS.join(', ')} FROM webhook_delivery_attempts WHERE ${clause}
         ORDER BY sent_at DESC, id DESC LIMIT @limit OFFSET @offset`,
        )
        .all(params),
    }));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
