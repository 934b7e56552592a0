import type Database from 'better-sqlite3';
import { openSqlite } from '@app/sqlite';
import type { LeaseStore } from '../leases.port';

/** Leases in a table of the embedded event store's file: every process on DATA_DIR sees the same ones. */
export class SqliteLeaseStore implements LeaseStore {
  private readonly db: Database.Database;

  constructor(
    file: string,
    private readonly now: () => number = Date.now,
  ) {
    this.db = openSqlite(file);
    this.db.exec('CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)');
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    // One statement: taking a free or expired lease and renewing one's own cannot race another process.
    const taken = this.db
      .prepare(
        `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE leases.holder = excluded.holder OR leases.expires_at <= ?`,
      )
      .run(name, holder, now + ttlMs, now);
    return taken.changes > 0;
  }

  async release(name: string, holder: string): Promise<void> {
    this.db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
