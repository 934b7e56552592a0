import type Database from 'better-sqlite3';
import { openSqlite } from '@app/sqlite';
import type { DeadLetter, DeadLetterStore } from '../dead-letters.port';

interface Row {
  id: string;
  doc: string;
  replay_requested_at: string | null;
  replayed_at: string | null;
  replay_outcome: string | null;
}

const toLetter = (r: Row): DeadLetter => ({
  ...(JSON.parse(r.doc) as Omit<DeadLetter, 'replay_requested_at' | 'replayed_at' | 'replay_outcome'>),
  replay_requested_at: r.replay_requested_at,
  replayed_at: r.replayed_at,
  replay_outcome: r.replay_outcome,
});

/** Dead letters in a table of the embedded event store's file (next to the checkpoints), shared by every process on DATA_DIR. */
export class SqliteDeadLetterStore implements DeadLetterStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(`CREATE TABLE IF NOT EXISTS dead_letters (
      id TEXT PRIMARY KEY, grp TEXT NOT NULL, dead_at TEXT NOT NULL, doc TEXT NOT NULL,
      replay_requested_at TEXT, replayed_at TEXT, replay_outcome TEXT)`);
  }

  async record(letter: Omit<DeadLetter, 'replay_requested_at' | 'replayed_at' | 'replay_outcome'>): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO dead_letters (id, grp, dead_at, doc) VALUES (?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET dead_at = excluded.dead_at, doc = excluded.doc`,
      )
      .run(letter.id, letter.group, letter.dead_at, JSON.stringify(letter));
  }

  async list(limit: number): Promise<DeadLetter[]> {
    return this.db.prepare<[number], Row>('SELECT * FROM dead_letters ORDER BY dead_at DESC, id LIMIT ?').all(limit).map(toLetter);
  }

  async get(id: string): Promise<DeadLetter | null> {
    const row = this.db.prepare<[string], Row>('SELECT * FROM dead_letters WHERE id = ?').get(id);
    return row ? toLetter(row) : null;
  }

  async requestReplay(id: string, at: string): Promise<boolean> {
    return this.db.prepare('UPDATE dead_letters SET replay_requested_at = ? WHERE id = ?').run(at, id).changes > 0;
  }

  async replaysDue(groups: string[], limit: number): Promise<DeadLetter[]> {
    if (groups.length === 0) return [];
    const marks = groups.map(() => '?').join(', ');
    return this.db
      .prepare<unknown[], Row>(
        `SELECT * FROM dead_letters WHERE grp IN (${marks}) AND replay_requested_at IS NOT NULL
         AND (replayed_at IS NULL OR replayed_at < replay_requested_at) ORDER BY replay_requested_at LIMIT ?`,
      )
      .all(...groups, limit)
      .map(toLetter);
  }

  async claimReplay(id: string): Promise<boolean> {
    const claimed = this.db
      .prepare(
        `UPDATE dead_letters SET replayed_at = replay_requested_at, replay_outcome = 'replaying'
         WHERE id = ? AND replay_requested_at IS NOT NULL AND (replayed_at IS NULL OR replayed_at < replay_requested_at)`,
      )
      .run(id);
    return claimed.changes > 0;
  }

  async markReplayed(id: string, outcome: string): Promise<void> {
    this.db.prepare('UPDATE dead_letters SET replay_outcome = ? WHERE id = ?').run(outcome, id);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
