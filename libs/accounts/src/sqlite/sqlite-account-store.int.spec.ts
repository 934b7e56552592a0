import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStoreContract } from '../testing/account-store.contract';
import { SqliteAccountStore } from './sqlite-account-store';

accountStoreContract('SQLite', async () => new SqliteAccountStore(join(mkdtempSync(join(tmpdir(), 'accounts-')), 'read-model.sqlite')));

describe('SqliteAccountStore across processes', () => {
  it('two connections to one file (two gateway processes) see the same sessions and one account per e-mail', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'accounts-')), 'read-model.sqlite');
    const one = new SqliteAccountStore(file);
    const two = new SqliteAccountStore(file);
    try {
      const m = {
        id: 'm1',
        organization_id: 'o1',
        email: 'a@example.com',
        display_name: 'A',
        role: 'owner' as const,
        password_hash: 'h',
        created_at: 't',
        updated_at: 't',
      };
      expect(await one.createMember(m)).toBe(true);
      expect(await two.createMember({ ...m, id: 'm2' })).toBe(false);
      await one.createSession({
        token_hash: 'h1',
        member_id: 'm1',
        organization_id: 'o1',
        csrf_token: 'c',
        created_at: '2026-01-01T00:00:00.000Z',
        last_seen_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2099-01-01T00:00:00.000Z',
        password_fingerprint: 'fp',
      });
      expect((await two.findSession('h1', '2026-01-02T00:00:00.000Z'))?.member_id).toBe('m1');
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('SqliteAccountStore upgrades', () => {
  it('opens a file made before reset links: its invitations are links to join (resets_member_id null)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'accounts-')), 'read-model.sqlite');
    const old = new Database(file);
    old.exec(`CREATE TABLE console_invitations (
        id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL, invited_by TEXT,
        created_at TEXT NOT NULL, expires_at TEXT NOT NULL, accepted_at TEXT, revoked_at TEXT)`);
    old
      .prepare('INSERT INTO console_invitations (id, organization_id, email, role, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run('i0', 'o', 'a@example.com', 'viewer', 't0', 't1');
    old.close();
    const store = new SqliteAccountStore(file);
    expect(await store.getInvitation('i0')).toMatchObject({ id: 'i0', email: 'a@example.com', resets_member_id: null });
  });

  it('opens a file made before sessions were bound to a password: its sessions stand for none', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'accounts-')), 'read-model.sqlite');
    const old = new Database(file);
    old.exec(`CREATE TABLE console_sessions (
        token_hash TEXT PRIMARY KEY, member_id TEXT NOT NULL, organization_id TEXT NOT NULL, csrf_token TEXT NOT NULL,
        created_at TEXT NOT NULL, last_seen_at TEXT NOT NULL, expires_at TEXT NOT NULL)`);
    old.prepare('INSERT INTO console_sessions VALUES (?, ?, ?, ?, ?, ?, ?)').run('h0', 'm', 'o', 'c', 't0', 't0', '2099-01-01');
    old.close();
    const store = new SqliteAccountStore(file);
    expect(await store.findSession('h0', '2026-01-01')).toMatchObject({ member_id: 'm', password_fingerprint: null });
  });
});
