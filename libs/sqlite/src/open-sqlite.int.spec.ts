import Database from 'better-sqlite3';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from './open-sqlite';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('SQLite files are owner-only', () => {
  it('creates the directory 0700 and the database, its -wal and -shm 0600, whatever the umask', () => {
    const previous = process.umask(0o002); // a permissive umask must not widen them
    try {
      const dir = join(mkdtempSync(join(tmpdir(), 'sqlite-modes-')), 'data', 'nested');
      const file = join(dir, 'store.sqlite');
      const db = openSqlite(file);
      db.exec('CREATE TABLE t (x TEXT)');
      db.prepare('INSERT INTO t VALUES (?)').run('row');
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(dir, '..'))).toBe(0o700);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect({ f, mode: mode(f).toString(8) }).toEqual({ f, mode: '600' });
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('narrows the files of an older version to 0600 when it opens them', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sqlite-modes-')), 'old.sqlite');
    const old = new Database(file); // better-sqlite3 alone creates 0644
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (x TEXT)');
    old.close();
    expect(mode(file)).toBe(0o644);
    const db = openSqlite(file);
    db.prepare('INSERT INTO t VALUES (?)').run('row');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect({ f, mode: mode(f).toString(8) }).toEqual({ f, mode: '600' });
    db.close();
  });
});

describe('SQLite commits', () => {
  it('go to a WAL synced at checkpoints (synchronous NORMAL), not at every commit on the event loop', () => {
    const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'sqlite-sync-')), 'store.sqlite'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA
    db.close();
  });
});
