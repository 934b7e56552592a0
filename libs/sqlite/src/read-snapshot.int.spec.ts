import type Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from './open-sqlite';
import { readSnapshot } from './read-snapshot';

describe('readSnapshot', () => {
  let reader: Database.Database;
  let writer: Database.Database; // another connection to the same file, as the read model's is to the directory's
  const count = () => reader.prepare<[], { n: number }>('SELECT count(*) AS n FROM runs').get()!.n;
  const insert = (id: string) => writer.prepare('INSERT INTO runs VALUES (?)').run(id);

  beforeEach(() => {
    const file = join(mkdtempSync(join(tmpdir(), 'read-snapshot-')), 'store.sqlite');
    reader = openSqlite(file);
    writer = openSqlite(file);
    reader.exec('CREATE TABLE runs (id TEXT PRIMARY KEY)');
    insert('a');
  });
  afterEach(() => {
    reader.close();
    writer.close();
  });

  it('gives its reads one snapshot: a commit by another connection between them is not seen by the second', () => {
    const inside = readSnapshot(reader, () => {
      const before = count();
      insert('b');
      return [before, count()];
    });
    expect(inside).toEqual([1, 1]);
    // Outside one, each statement reads the latest commit: what the snapshot kept apart.
    const before = count();
    insert('c');
    expect([before, count()]).toEqual([2, 3]);
  });

  it('ends its transaction when a read throws, and the error reaches the caller', () => {
    expect(() =>
      readSnapshot(reader, () => {
        count();
        reader.prepare('SELECT * FROM no_such_table').all();
      }),
    ).toThrow(/no such table/);
    expect(reader.inTransaction).toBe(false);
    insert('b');
    expect(count()).toBe(2); // no snapshot left open: the new row is seen
  });

  it('runs inside a transaction already open, without ending it', () => {
    reader.exec('BEGIN');
    expect(readSnapshot(reader, count)).toBe(1);
    expect(reader.inTransaction).toBe(true);
    reader.exec('COMMIT');
  });

  it('sees each commit made before it, call after call on the same connection', () => {
    for (let i = 0; i < 3; i++) {
      expect(readSnapshot(reader, () => ({ n: count() }))).toEqual({ n: 1 + i });
      insert(`x${i}`);
    }
  });
});
