/**
 * The people of an organization who use the console (docs/console.md): members, the
 * invitations that bring them in, and their signed-in sessions. A port of its own, apart
 * from the directory (organizations, keys, schemas): human accounts and API credentials
 * never mix. Embedded: tables in the read model's SQLite file; distributed: MongoDB.
 */

export type MemberRole = 'owner' | 'admin' | 'viewer';
export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'viewer'];

export interface Member {
  id: string;
  organization_id: string;
  /** Lower-cased; unique across the service (one e-mail signs in to one organization). */
  email: string;
  display_name: string;
  role: MemberRole;
  /** argon2id (PHC string); never returned by any API. */
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface Invitation {
  id: string;
  organization_id: string;
  /** Lower-cased. */
  email: string;
  role: MemberRole;
  /** The member who invited (null: the operator, through the admin API or CLI). */
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  /** Set once, when the invitation was used (single use). */
  accepted_at: string | null;
  /** Set when an owner withdrew it. */
  revoked_at: string | null;
  /**
   * A link that sets a new password: the member it is for (an invitation for the organization's own member). It
   * works only while that member is there with this e-mail, and never makes an account. Null or absent: a link to join.
   */
  resets_member_id?: string | null;
}

export interface Session {
  /** SHA-256 (hex) of the cookie's random token: the token itself is never stored. */
  token_hash: string;
  member_id: string;
  organization_id: string;
  /** Sent back by the page in X-CSRF-Token on every state-changing call (docs/console.md, "CSRF"). */
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  /** Idle expiry: last_seen_at + CONSOLE_SESSION_IDLE_SECONDS, moved forward as the session is used. */
  expires_at: string;
  /**
   * Which password the session was opened with (a digest of the member's password hash then). A session whose
   * member's password has changed since is refused when it is next used, whatever raced the change (and ends with its
   * idle time). Null: a session stored before the field existed, refused the same way.
   */
  password_fingerprint: string | null;
}

/** Whether a role change or removal was done, or why it was refused. */
export type MemberChangeOutcome = 'done' | 'not_found' | 'last_owner';

/**
 * A role change's or removal's outcome and, when it was done, the role the member held just
 * before it, read in the same transaction: the audit log's "from" role is then the one this
 * change replaced, even when two owners change one member at the same instant.
 */
export type MemberChange = { outcome: 'done'; previous_role: MemberRole } | { outcome: 'not_found' | 'last_owner' };

/** A password replaced: `from`, the hash the caller proved; `to`, the new one. */
export interface PasswordChange {
  from: string;
  to: string;
}
/** The session a password change keeps signed in, and the fingerprint of the new password it then stands for. */
export interface KeptSession {
  tokenHash: string;
  fingerprint: string;
}

export interface AccountStore {
  /** Adds a member; false when the e-mail already has an account (nothing written). */
  createMember(member: Member): Promise<boolean>;
  getMember(organizationId: string, id: string): Promise<Member | null>;
  /** The member with this (lower-cased) e-mail, in any organization. */
  findMemberByEmail(email: string): Promise<Member | null>;
  /** The organization's members, oldest first. */
  listMembers(organizationId: string): Promise<Member[]>;
  /**
   * Changes a member's role, atomically refusing (`last_owner`) to take the role of the
   * organization's only owner away.
   */
  changeRole(organizationId: string, id: string, role: MemberRole, at: string): Promise<MemberChange>;
  /** Removes a member and their sessions, atomically refusing (`last_owner`) to remove the only owner. */
  removeMember(organizationId: string, id: string): Promise<MemberChange>;
  /** Replaces the password hash; false when there is no such member. */
  setPasswordHash(organizationId: string, id: string, passwordHash: string, at: string): Promise<boolean>;
  /**
   * A member's own password change, in one write: the hash replaced (`from`, the one the caller
   * proved, `to` the new one), the session that made the change moved to it (`kept`: it stays
   * signed in), and every other session of the member ended. Null, and nothing written, when the
   * member is gone, their hash is no longer `from` (another change came first), or the kept session
   * has ended; else how many sessions ended. One write, so no request on the kept session is
   * refused between the hash and its fingerprint, and of two changes at once only the first is made.
   */
  changeOwnPassword(organizationId: string, id: string, hash: PasswordChange, at: string, kept: KeptSession): Promise<number | null>;

  createInvitation(invitation: Invitation): Promise<void>;
  getInvitation(id: string): Promise<Invitation | null>;
  /** The organization's invitations not yet accepted nor revoked (expired ones too), newest first. */
  listPendingInvitations(organizationId: string): Promise<Invitation[]>;
  /**
   * Marks the invitation used, once: true for the one caller that did (it was neither
   * accepted nor revoked, and had not expired at `at`), false for every other.
   */
  acceptInvitation(id: string, at: string): Promise<boolean>;
  /** Withdraws a pending invitation of the organization; false when there is none. */
  revokeInvitation(organizationId: string, id: string, at: string): Promise<boolean>;

  createSession(session: Session): Promise<void>;
  /** The session with this token hash, if it has not expired at `now`. */
  findSession(tokenHash: string, now: string): Promise<Session | null>;
  /** Moves a session's idle expiry forward. */
  touchSession(tokenHash: string, lastSeenAt: string, expiresAt: string): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Ends every session of the member but the one named (null: all of them); returns how many ended. */
  deleteMemberSessions(memberId: string, exceptTokenHash: string | null): Promise<number>;

  close(): Promise<void>;
}

export const ACCOUNT_STORE = Symbol('ACCOUNT_STORE');
