import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directoryContract } from '../testing/directory.contract';
import { testSecretCipher } from '../testing/test-secret-cipher';
import { SqliteDirectory } from './sqlite-directory';

directoryContract(
  'SQLite',
  async () => new SqliteDirectory(join(mkdtempSync(join(tmpdir(), 'dir-')), 'read-model.sqlite'), testSecretCipher()),
);

describe('SQLite directory: its tables in read-model.sqlite', () => {
  it('opens the directory of an existing read-model.sqlite, beside the run documents, and shares the file with another connection', async () => {
    // A file as the version before the directory had a lib of its own wrote it (tables of both in one file).
    const file = join(mkdtempSync(join(tmpdir(), 'dir-shared-')), 'read-model.sqlite');
    const old = new Database(file);
    old.exec(`
      CREATE TABLE runs (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, revision INTEGER NOT NULL, doc TEXT NOT NULL);
      CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
      CREATE TABLE organizations (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL, revoked_at TEXT, prefix TEXT);`);
    old.prepare('INSERT INTO runs (id, organization_id, revision, doc) VALUES (?, ?, ?, ?)').run('r1', 'o1', 0, '{"id":"r1"}');
    old.prepare('INSERT INTO projection_checkpoints (name, position) VALUES (?, ?)').run('runs', 7);
    old
      .prepare('INSERT INTO api_keys (id, organization_id, key_hash, created_at, prefix) VALUES (?, ?, ?, ?, ?)')
      .run('k1', 'o1', 'h1', 't', 'abcdefgh');
    old.close();

    const directory = new SqliteDirectory(file, testSecretCipher());
    expect(await directory.findApiKey('h1')).toMatchObject({ id: 'k1', organization_id: 'o1', prefix: 'abcdefgh' });
    await directory.addApiKey({ id: 'k2', organization_id: 'o1', key_hash: 'h2', prefix: null, created_at: 'u', revoked_at: null });

    // A second connection to the same file (the read model's) reads and writes beside it.
    const other = new Database(file);
    expect(other.prepare('SELECT id, revision FROM runs').all()).toEqual([{ id: 'r1', revision: 0 }]);
    other.prepare('UPDATE projection_checkpoints SET position = 8').run();
    expect((await directory.listApiKeys('o1')).map((k) => k.id)).toEqual(['k1', 'k2']);
    other.close();
    await directory.close();
  });
});
