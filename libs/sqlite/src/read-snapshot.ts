import type Database from 'better-sqlite3';

type ReadInTransaction = <T>(read: () => T) => T;

/** better-sqlite3's own (deferred) transaction, made once per connection: making one per call costs more than a read. */
const transactionByConnection = new WeakMap<Database.Database, ReadInTransaction>();

/**
 * Runs the reads in `read` as one read transaction, for two reasons:
 * - they see one snapshot: a page and its total agree even when another connection (the other
 *   connection to the same file in this process, or another process) commits between them;
 * - in WAL mode SQLite takes and releases a read lock in the -shm file around every statement
 *   run outside a transaction, two `fcntl` system calls each. On this machine a point read cost
 *   5.6 µs alone and 1.0 µs inside a transaction (docs/decisions.md, "SQLite reads of one request").
 * Inside a transaction already, `read` simply runs in it (better-sqlite3 makes it a savepoint). `read`
 * must not write: the transaction is deferred, and a write would need the write lock mid-way.
 */
export function readSnapshot<T>(db: Database.Database, read: () => T): T {
  let inTransaction = transactionByConnection.get(db);
  if (!inTransaction) {
    inTransaction = db.transaction((run: () => unknown) => run()) as ReadInTransaction;
    transactionByConnection.set(db, inTransaction);
  }
  return inTransaction(read);
}
