import mongoose, { type ClientSession, type Connection, Schema } from 'mongoose';
import type { AccountStore, Invitation, KeptSession, Member, MemberChange, MemberRole, PasswordChange, Session } from '../accounts.port';

const options = { versionKey: false as const, strict: 'throw' as const };
const memberSchema = new Schema(
  {
    _id: String,
    organization_id: { type: String, required: true },
    email: { type: String, required: true },
    display_name: { type: String, required: true },
    role: { type: String, required: true },
    password_hash: { type: String, required: true },
    created_at: { type: String, required: true },
    updated_at: { type: String, required: true },
  },
  options,
);
memberSchema.index({ email: 1 }, { unique: true });
memberSchema.index({ organization_id: 1, created_at: 1 });

const invitationSchema = new Schema(
  {
    _id: String,
    organization_id: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, required: true },
    invited_by: { type: String, default: null },
    created_at: { type: String, required: true },
    expires_at: { type: String, required: true },
    accepted_at: { type: String, default: null },
    revoked_at: { type: String, default: null },
    resets_member_id: { type: String, default: null },
  },
  options,
);
invitationSchema.index({ organization_id: 1, created_at: -1 });

const sessionSchema = new Schema(
  {
    _id: String, // the token's hash
    member_id: { type: String, required: true },
    organization_id: { type: String, required: true },
    csrf_token: { type: String, required: true },
    created_at: { type: String, required: true },
    last_seen_at: { type: String, required: true },
    // A Date as well, for MongoDB's TTL index to delete ended sessions by itself.
    expires_at: { type: String, required: true },
    expires: { type: Date, required: true },
    password_fingerprint: { type: String, default: null },
  },
  options,
);
sessionSchema.index({ member_id: 1 });
sessionSchema.index({ expires: 1 }, { expireAfterSeconds: 0 });

/** One document per organization that every owner change writes (see changeOwners). */
const ownerGuardSchema = new Schema({ _id: String, changes: { type: Number, default: 0 } }, options);

const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;
/** A stored document as the port's record: `_id` under the port's name for it, MongoDB's own fields left out. */
const fromDoc = <T>(doc: object | null, key: string): T | null => {
  if (!doc) return null;
  const { _id, expires: _expires, ...rest } = doc as Record<string, unknown>;
  return { [key]: _id, ...rest } as T;
};

/** A member's sessions but one (null: all of them). */
const sessionsBut = (memberId: string, exceptTokenHash: string | null) =>
  exceptTokenHash === null ? { member_id: memberId } : { member_id: memberId, _id: { $ne: exceptTokenHash } };

/** Thrown inside a transaction to abort it: what it was to change is not as the caller found it. */
const NOT_CHANGED = new Error('not changed');

/** Members, invitations and sessions in the read model's MongoDB database (a replica set: owner changes use transactions). */
export class MongoAccountStore implements AccountStore {
  private readonly members;
  private readonly invitations;
  private readonly sessions;
  private readonly ownerGuards;

  private constructor(private readonly connection: Connection) {
    this.members = connection.model('ConsoleMember', memberSchema, 'console_members');
    this.invitations = connection.model('ConsoleInvitation', invitationSchema, 'console_invitations');
    this.sessions = connection.model('ConsoleSession', sessionSchema, 'console_sessions');
    this.ownerGuards = connection.model('ConsoleOwnerGuard', ownerGuardSchema, 'console_owner_guards');
  }

  static async connect(url: string, dbName?: string): Promise<MongoAccountStore> {
    const connection = await mongoose
      .createConnection(url, { autoIndex: false, autoCreate: false, ...(dbName ? { dbName } : {}) })
      .asPromise();
    const store = new MongoAccountStore(connection);
    for (const model of [store.members, store.invitations, store.sessions, store.ownerGuards]) {
      await model.createCollection().catch((err: { codeName?: string }) => {
        if (err.codeName !== 'NamespaceExists') throw err;
      });
      await model.syncIndexes();
    }
    return store;
  }

  async createMember(member: Member): Promise<boolean> {
    const { id, ...rest } = member;
    try {
      await this.members.create({ _id: id, ...rest, email: member.email.toLowerCase() });
      return true;
    } catch (err) {
      if (isDuplicate(err)) return false;
      throw err;
    }
  }

  async getMember(organizationId: string, id: string): Promise<Member | null> {
    return fromDoc<Member>(await this.members.findOne({ _id: id, organization_id: organizationId }).lean(), 'id');
  }

  async findMemberByEmail(email: string): Promise<Member | null> {
    return fromDoc<Member>(await this.members.findOne({ email: email.toLowerCase() }).lean(), 'id');
  }

  async listMembers(organizationId: string): Promise<Member[]> {
    const docs = await this.members.find({ organization_id: organizationId }).sort({ created_at: 1, _id: 1 }).lean();
    return docs.map((d) => fromDoc<Member>(d, 'id')!);
  }

  changeRole(organizationId: string, id: string, role: MemberRole, at: string): Promise<MemberChange> {
    return this.changeOwners(organizationId, id, async (member, owners, session) => {
      if (member.role === 'owner' && role !== 'owner' && owners <= 1) return { outcome: 'last_owner' };
      await this.members.updateOne({ _id: id }, { $set: { role, updated_at: at } }, { session });
      return { outcome: 'done', previous_role: member.role };
    });
  }

  removeMember(organizationId: string, id: string): Promise<MemberChange> {
    return this.changeOwners(organizationId, id, async (member, owners, session) => {
      if (member.role === 'owner' && owners <= 1) return { outcome: 'last_owner' };
      await this.members.deleteOne({ _id: id }, { session });
      await this.sessions.deleteMany({ member_id: id }, { session });
      return { outcome: 'done', previous_role: member.role };
    });
  }

  /**
   * Reads the member and counts the owners inside a transaction that also writes the
   * organization's owner guard: two concurrent changes (say, two owners demoting each
   * other) both write that one document, so MongoDB lets one commit and retries the other,
   * which then counts one owner fewer. Without the shared write, snapshot isolation would
   * let both see two owners and leave none (write skew).
   */
  private async changeOwners(
    organizationId: string,
    id: string,
    change: (member: { role: MemberRole }, owners: number, session: ClientSession) => Promise<MemberChange>,
  ): Promise<MemberChange> {
    return this.connection.transaction(async (session) => {
      await this.ownerGuards.updateOne({ _id: organizationId }, { $inc: { changes: 1 } }, { upsert: true, session });
      const member = await this.members.findOne({ _id: id, organization_id: organizationId }, { role: 1 }, { session }).lean();
      if (!member) return { outcome: 'not_found' } as const;
      const owners = await this.members.countDocuments({ organization_id: organizationId, role: 'owner' }, { session });
      return change(member as { role: MemberRole }, owners, session);
    });
  }

  async setPasswordHash(organizationId: string, id: string, passwordHash: string, at: string): Promise<boolean> {
    const res = await this.members.updateOne(
      { _id: id, organization_id: organizationId },
      { $set: { password_hash: passwordHash, updated_at: at } },
    );
    return res.matchedCount > 0;
  }

  changeOwnPassword(organizationId: string, id: string, hash: PasswordChange, at: string, kept: KeptSession): Promise<number | null> {
    return this.connection
      .transaction(async (session) => {
        const changed = await this.members.updateOne(
          { _id: id, organization_id: organizationId, password_hash: hash.from },
          { $set: { password_hash: hash.to, updated_at: at } },
          { session },
        );
        const moved = await this.sessions.updateOne(
          { _id: kept.tokenHash, member_id: id },
          { $set: { password_fingerprint: kept.fingerprint } },
          { session },
        );
        // Thrown, the transaction is aborted: nothing of the change is kept.
        if (changed.matchedCount === 0 || moved.matchedCount === 0) throw NOT_CHANGED;
        return (await this.sessions.deleteMany(sessionsBut(id, kept.tokenHash), { session })).deletedCount;
      })
      .catch((err: unknown) => {
        if (err === NOT_CHANGED) return null;
        throw err;
      });
  }

  async createInvitation(invitation: Invitation): Promise<void> {
    const { id, ...rest } = invitation;
    await this.invitations.create({ _id: id, ...rest, email: invitation.email.toLowerCase() });
  }

  async getInvitation(id: string): Promise<Invitation | null> {
    return fromDoc<Invitation>(await this.invitations.findOne({ _id: id }).lean(), 'id');
  }

  async listPendingInvitations(organizationId: string): Promise<Invitation[]> {
    const docs = await this.invitations
      .find({ organization_id: organizationId, accepted_at: null, revoked_at: null })
      .sort({ created_at: -1, _id: 1 })
      .lean();
    return docs.map((d) => fromDoc<Invitation>(d, 'id')!);
  }

  async acceptInvitation(id: string, at: string): Promise<boolean> {
    // One conditional update: of two concurrent acceptances, only one matches.
    const res = await this.invitations.updateOne(
      { _id: id, accepted_at: null, revoked_at: null, expires_at: { $gt: at } },
      { $set: { accepted_at: at } },
    );
    return res.modifiedCount > 0;
  }

  async revokeInvitation(organizationId: string, id: string, at: string): Promise<boolean> {
    const res = await this.invitations.updateOne(
      { _id: id, organization_id: organizationId, accepted_at: null, revoked_at: null },
      { $set: { revoked_at: at } },
    );
    return res.modifiedCount > 0;
  }

  async createSession(session: Session): Promise<void> {
    const { token_hash, ...rest } = session;
    await this.sessions.create({ _id: token_hash, ...rest, expires: new Date(session.expires_at) });
  }

  async findSession(tokenHash: string, now: string): Promise<Session | null> {
    return fromDoc<Session>(await this.sessions.findOne({ _id: tokenHash, expires_at: { $gt: now } }).lean(), 'token_hash');
  }

  async touchSession(tokenHash: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await this.sessions.updateOne(
      { _id: tokenHash },
      { $set: { last_seen_at: lastSeenAt, expires_at: expiresAt, expires: new Date(expiresAt) } },
    );
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.sessions.deleteOne({ _id: tokenHash });
  }

  async deleteMemberSessions(memberId: string, exceptTokenHash: string | null): Promise<number> {
    return (await this.sessions.deleteMany(sessionsBut(memberId, exceptTokenHash))).deletedCount;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
