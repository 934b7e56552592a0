import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** What the service keeps in DATA_DIR is readable by its own user only (docs/security.md). */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Opens a SQLite file set up for several readers and one writer at a time, possibly
 * in several processes: WAL journal (synchronous NORMAL: safe from a crash of the process),
 * a busy timeout instead of immediate SQLITE_BUSY.
 * The file is created owner-only (0600) before SQLite opens it, and SQLite gives its
 * -wal and -shm files the database file's mode; files of an older version are narrowed
 * to 0600 too.
 */
export function openSqlite(file: string): Database.Database {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: DIR_MODE });
    closeSync(openSync(file, 'a', FILE_MODE));
    for (const f of [file, `${file}-wal`, `${file}-shm`]) narrowToOwner(f);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL, not FULL: FULL fsyncs the WAL at every commit, on the event loop, and while a big output is being
  // written that fsync waited 140-250 ms for the file system's journal (docs/decisions.md, "SQLite commits").
  // A crash of the process loses nothing; a power cut may roll back the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

function narrowToOwner(file: string): void {
  try {
    chmodSync(file, FILE_MODE);
  } catch (err) {
    // Missing (-wal/-shm not created yet), or owned by another user: left as it is.
    if (!['ENOENT', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
}
