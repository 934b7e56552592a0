import type Database from 'better-sqlite3';
import { addMissingColumns, openSqlite } from '@app/sqlite';
import type { AccountStore, Invitation, KeptSession, Member, MemberChange, MemberRole, PasswordChange, Session } from '../accounts.port';

/** Thrown inside a transaction to roll it back: what it was to change is not as the caller found it. */
const NOT_CHANGED = new Error('not changed');

/**
 * Members, invitations and sessions in tables of the embedded read model's file: every
 * gateway process on DATA_DIR sees the same sessions. Each change that must be atomic is
 * one statement or one transaction (SQLite serialises writers across processes).
 */
export class SqliteAccountStore implements AccountStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS console_members (
        id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, email TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL,
        role TEXT NOT NULL, password_hash TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS console_members_by_org ON console_members (organization_id, created_at);
      CREATE TABLE IF NOT EXISTS console_invitations (
        id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL, invited_by TEXT,
        created_at TEXT NOT NULL, expires_at TEXT NOT NULL, accepted_at TEXT, revoked_at TEXT);
      CREATE INDEX IF NOT EXISTS console_invitations_by_org ON console_invitations (organization_id, created_at);
      CREATE TABLE IF NOT EXISTS console_sessions (
        token_hash TEXT PRIMARY KEY, member_id TEXT NOT NULL, organization_id TEXT NOT NULL, csrf_token TEXT NOT NULL,
        created_at TEXT NOT NULL, last_seen_at TEXT NOT NULL, expires_at TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS console_sessions_by_member ON console_sessions (member_id);
      CREATE INDEX IF NOT EXISTS console_sessions_by_expiry ON console_sessions (expires_at);
    `);
    // Added with password resets: the member a reset link is for (null: a link to join).
    addMissingColumns(this.db, 'console_invitations', { resets_member_id: 'TEXT' });
    // Added when sessions were bound to the password they were opened with (older rows: null, ended when next used).
    addMissingColumns(this.db, 'console_sessions', { password_fingerprint: 'TEXT' });
  }

  async createMember(member: Member): Promise<boolean> {
    const inserted = this.db
      .prepare(
        `INSERT INTO console_members (id, organization_id, email, display_name, role, password_hash, created_at, updated_at)
         VALUES (@id, @organization_id, @email, @display_name, @role, @password_hash, @created_at, @updated_at)
         ON CONFLICT(email) DO NOTHING`,
      )
      .run({ ...member, email: member.email.toLowerCase() });
    return inserted.changes > 0;
  }

  async getMember(organizationId: string, id: string): Promise<Member | null> {
    return (
      this.db
        .prepare<[string, string], Member>('SELECT * FROM console_members WHERE id = ? AND organization_id = ?')
        .get(id, organizationId) ?? null
    );
  }

  async findMemberByEmail(email: string): Promise<Member | null> {
    return this.db.prepare<[string], Member>('SELECT * FROM console_members WHERE email = ?').get(email.toLowerCase()) ?? null;
  }

  async listMembers(organizationId: string): Promise<Member[]> {
    return this.db
      .prepare<[string], Member>('SELECT * FROM console_members WHERE organization_id = ? ORDER BY created_at, id')
      .all(organizationId);
  }

  async changeRole(organizationId: string, id: string, role: MemberRole, at: string): Promise<MemberChange> {
    return this.db
      .transaction((): MemberChange => {
        const member = this.roleOf(organizationId, id);
        if (!member) return { outcome: 'not_found' };
        if (member.role === 'owner' && role !== 'owner' && this.owners(organizationId) <= 1) return { outcome: 'last_owner' };
        this.db.prepare('UPDATE console_members SET role = ?, updated_at = ? WHERE id = ?').run(role, at, id);
        return { outcome: 'done', previous_role: member.role };
      })
      .immediate();
  }

  async removeMember(organizationId: string, id: string): Promise<MemberChange> {
    return this.db
      .transaction((): MemberChange => {
        const member = this.roleOf(organizationId, id);
        if (!member) return { outcome: 'not_found' };
        if (member.role === 'owner' && this.owners(organizationId) <= 1) return { outcome: 'last_owner' };
        this.db.prepare('DELETE FROM console_members WHERE id = ?').run(id);
        this.db.prepare('DELETE FROM console_sessions WHERE member_id = ?').run(id);
        return { outcome: 'done', previous_role: member.role };
      })
      .immediate();
  }

  private roleOf(organizationId: string, id: string): { role: MemberRole } | undefined {
    return this.db
      .prepare<[string, string], { role: MemberRole }>('SELECT role FROM console_members WHERE id = ? AND organization_id = ?')
      .get(id, organizationId);
  }

  private owners(organizationId: string): number {
    return this.db
      .prepare<[string], { n: number }>("SELECT count(*) AS n FROM console_members WHERE organization_id = ? AND role = 'owner'")
      .get(organizationId)!.n;
  }

  async setPasswordHash(organizationId: string, id: string, passwordHash: string, at: string): Promise<boolean> {
    const updated = this.db
      .prepare('UPDATE console_members SET password_hash = ?, updated_at = ? WHERE id = ? AND organization_id = ?')
      .run(passwordHash, at, id, organizationId);
    return updated.changes > 0;
  }

  async changeOwnPassword(organizationId: string, id: string, hash: PasswordChange, at: string, kept: KeptSession): Promise<number | null> {
    try {
      return this.db
        .transaction((): number => {
          const changed = this.db
            .prepare(
              'UPDATE console_members SET password_hash = ?, updated_at = ? WHERE id = ? AND organization_id = ? AND password_hash = ?',
            )
            .run(hash.to, at, id, organizationId, hash.from).changes;
          const moved = this.db
            .prepare('UPDATE console_sessions SET password_fingerprint = ? WHERE token_hash = ? AND member_id = ?')
            .run(kept.fingerprint, kept.tokenHash, id).changes;
          // Thrown, the transaction is rolled back: nothing of the change is kept.
          if (changed === 0 || moved === 0) throw NOT_CHANGED;
          return this.endSessionsBut(id, kept.tokenHash);
        })
        .immediate();
    } catch (err) {
      if (err === NOT_CHANGED) return null;
      throw err;
    }
  }

  async createInvitation(invitation: Invitation): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO console_invitations (id, organization_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at, resets_member_id)
         VALUES (@id, @organization_id, @email, @role, @invited_by, @created_at, @expires_at, @accepted_at, @revoked_at, @resets_member_id)`,
      )
      .run({ ...invitation, email: invitation.email.toLowerCase(), resets_member_id: invitation.resets_member_id ?? null });
  }

  async getInvitation(id: string): Promise<Invitation | null> {
    return this.db.prepare<[string], Invitation>('SELECT * FROM console_invitations WHERE id = ?').get(id) ?? null;
  }

  async listPendingInvitations(organizationId: string): Promise<Invitation[]> {
    return this.db
      .prepare<[string], Invitation>(
        `SELECT * FROM console_invitations WHERE organization_id = ? AND accepted_at IS NULL AND revoked_at IS NULL
         ORDER BY created_at DESC, id`,
      )
      .all(organizationId);
  }

  async acceptInvitation(id: string, at: string): Promise<boolean> {
    // One statement: of two concurrent acceptances, one changes the row and the other finds it taken.
    const used = this.db
      .prepare(
        'UPDATE console_invitations SET accepted_at = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?',
      )
      .run(at, id, at);
    return used.changes > 0;
  }

  async revokeInvitation(organizationId: string, id: string, at: string): Promise<boolean> {
    const revoked = this.db
      .prepare(
        'UPDATE console_invitations SET revoked_at = ? WHERE id = ? AND organization_id = ? AND accepted_at IS NULL AND revoked_at IS NULL',
      )
      .run(at, id, organizationId);
    return revoked.changes > 0;
  }

  async createSession(session: Session): Promise<void> {
    // Sessions that ended by themselves are swept as new ones begin: the table holds live ones and a few more.
    this.db.prepare('DELETE FROM console_sessions WHERE expires_at <= ?').run(session.created_at);
    this.db
      .prepare(
        `INSERT INTO console_sessions
           (token_hash, member_id, organization_id, csrf_token, created_at, last_seen_at, expires_at, password_fingerprint)
         VALUES (@token_hash, @member_id, @organization_id, @csrf_token, @created_at, @last_seen_at, @expires_at, @password_fingerprint)`,
      )
      .run(session);
  }

  async findSession(tokenHash: string, now: string): Promise<Session | null> {
    return (
      this.db
        .prepare<[string, string], Session>('SELECT * FROM console_sessions WHERE token_hash = ? AND expires_at > ?')
        .get(tokenHash, now) ?? null
    );
  }

  async touchSession(tokenHash: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    this.db
      .prepare('UPDATE console_sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?')
      .run(lastSeenAt, expiresAt, tokenHash);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    this.db.prepare('DELETE FROM console_sessions WHERE token_hash = ?').run(tokenHash);
  }

  async deleteMemberSessions(memberId: string, exceptTokenHash: string | null): Promise<number> {
    return this.endSessionsBut(memberId, exceptTokenHash);
  }

  /** Ends the member's sessions but one (null: all), synchronously, so a transaction can hold it; how many ended. */
  private endSessionsBut(memberId: string, exceptTokenHash: string | null): number {
    return this.db.prepare('DELETE FROM console_sessions WHERE member_id = ? AND token_hash IS NOT ?').run(memberId, exceptTokenHash)
      .changes;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
