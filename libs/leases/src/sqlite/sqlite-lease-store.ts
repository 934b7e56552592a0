import type Database from 'better-sqlite3';
import { addMissingColumns, openSqlite } from '@app/sqlite';
import type { LeaseRecord, LeaseStore } from '../leases.port';

/** Leases in a table of the embedded event store's file: every process on DATA_DIR sees the same ones. */
export class SqliteLeaseStore implements LeaseStore {
  private readonly db: Database.Database;

  constructor(
    file: string,
    private readonly now: () => number = Date.now,
  ) {
    this.db = openSqlite(file);
    this.db.exec('CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)');
    addMissingColumns(this.db, 'leases', { note: 'TEXT' });
  }

  async acquire(name: string, holder: string, ttlMs: number, note?: string): Promise<boolean> {
    const now = this.now();
    // One statement: taking a free or expired lease and renewing one's own cannot race another process.
    const taken = this.db
      .prepare(
        `INSERT INTO leases (name, holder, expires_at, note) VALUES (?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
           note = COALESCE(excluded.note, leases.note)
         WHERE leases.holder = excluded.holder OR leases.expires_at <= ?`,
      )
      .run(name, holder, now + ttlMs, note ?? null, now);
    return taken.changes > 0;
  }

  async release(name: string, holder: string): Promise<void> {
    this.db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
  }

  async list(prefix: string, limit: number): Promise<LeaseRecord[]> {
    // substr, not LIKE: a name may hold % or _.
    return this.db
      .prepare<[number, string, number], { name: string; holder: string; expires_at: number; note: string | null }>(
        'SELECT name, holder, expires_at, note FROM leases WHERE substr(name, 1, ?) = ? ORDER BY expires_at LIMIT ?',
      )
      .all(prefix.length, prefix, limit)
      .map((r) => ({ name: r.name, holder: r.holder, expiresAt: r.expires_at, note: r.note }));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
