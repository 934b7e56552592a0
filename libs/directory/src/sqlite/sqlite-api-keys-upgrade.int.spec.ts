import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testSecretCipher } from '../testing/test-secret-cipher';
import { SqliteDirectory } from './sqlite-directory';

describe('SQLite directory upgrades: API key prefixes', () => {
  it('keeps keys issued before prefixes were stored: listed with a null prefix, still found by hash', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dir-keys-')), 'read.sqlite');
    const old = new Database(file);
    old.exec(`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT)`);
    old.prepare('INSERT INTO api_keys (id, organization_id, key_hash, created_at) VALUES (?, ?, ?, ?)').run('k0', 'o', 'h0', 't0');
    old.close();
    const directory = new SqliteDirectory(file, testSecretCipher());
    await directory.addApiKey({ id: 'k1', organization_id: 'o', key_hash: 'h1', prefix: 'abcdefgh', created_at: 't1', revoked_at: null });
    expect(await directory.listApiKeys('o')).toEqual([
      { id: 'k0', organization_id: 'o', prefix: null, name: null, created_at: 't0', revoked_at: null, last_used_at: null },
      { id: 'k1', organization_id: 'o', prefix: 'abcdefgh', name: null, created_at: 't1', revoked_at: null, last_used_at: null },
    ]);
    expect(await directory.findApiKey('h0')).toMatchObject({ id: 'k0', organization_id: 'o', prefix: null });
    await directory.close();
  });
});
