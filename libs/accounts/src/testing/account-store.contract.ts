import { randomUUID } from 'node:crypto';
import type { AccountStore, Invitation, Member, Session } from '../accounts.port';

const T0 = '2026-11-24T10:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const member = (organization_id: string, email: string, role: Member['role'] = 'owner'): Member => ({
  id: randomUUID(),
  organization_id,
  email,
  display_name: email.split('@')[0],
  role,
  password_hash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
  created_at: T0,
  updated_at: T0,
});
const invitation = (organization_id: string, email: string, overrides: Partial<Invitation> = {}): Invitation => ({
  id: randomUUID(),
  organization_id,
  email,
  role: 'viewer',
  invited_by: null,
  created_at: T0,
  expires_at: later(3600),
  accepted_at: null,
  revoked_at: null,
  resets_member_id: null,
  ...overrides,
});
const session = (m: Member, overrides: Partial<Session> = {}): Session => ({
  token_hash: randomUUID().replace(/-/g, ''),
  member_id: m.id,
  organization_id: m.organization_id,
  csrf_token: randomUUID(),
  created_at: T0,
  last_seen_at: T0,
  expires_at: later(600),
  password_fingerprint: 'fp-1',
  ...overrides,
});

/** What every AccountStore adapter must do (docs/console.md): run against SQLite here, MongoDB when MONGO_URL is set. */
export function accountStoreContract(name: string, create: () => Promise<AccountStore>): void {
  describe(`AccountStore contract: ${name}`, () => {
    let store: AccountStore;
    const orgA = randomUUID();
    const orgB = randomUUID();
    beforeEach(async () => {
      store = await create();
    });
    afterEach(() => store.close());

    it('one account per e-mail, whatever its case; members are found by e-mail and within their organization only', async () => {
      const ada = member(orgA, 'ada@example.com');
      expect(await store.createMember(ada)).toBe(true);
      expect(await store.createMember(member(orgB, 'ADA@Example.com'))).toBe(false);
      expect(await store.findMemberByEmail('Ada@EXAMPLE.com')).toEqual(ada);
      expect(await store.getMember(orgA, ada.id)).toEqual(ada);
      expect(await store.getMember(orgB, ada.id)).toBeNull();
      const bo = member(orgA, 'bo@example.com', 'viewer');
      await store.createMember({ ...bo, created_at: later(1) });
      expect((await store.listMembers(orgA)).map((m) => m.email)).toEqual(['ada@example.com', 'bo@example.com']);
      expect(await store.listMembers(orgB)).toEqual([]);
    });

    it('keeps one owner: the only owner can be neither demoted nor removed; another organization gets not_found', async () => {
      const ada = member(orgA, `ada-${randomUUID()}@example.com`);
      const bo = member(orgA, `bo-${randomUUID()}@example.com`, 'admin');
      await store.createMember(ada);
      await store.createMember(bo);
      expect(await store.changeRole(orgA, ada.id, 'admin', later(1))).toEqual({ outcome: 'last_owner' });
      expect(await store.removeMember(orgA, ada.id)).toEqual({ outcome: 'last_owner' });
      expect(await store.changeRole(orgB, bo.id, 'owner', later(1))).toEqual({ outcome: 'not_found' });
      expect(await store.removeMember(orgB, bo.id)).toEqual({ outcome: 'not_found' });
      expect(await store.changeRole(orgA, bo.id, 'owner', later(1))).toEqual({ outcome: 'done', previous_role: 'admin' });
      expect((await store.getMember(orgA, bo.id))?.role).toBe('owner');
      // Two owners demoting each other at once: one of them stays an owner.
      const outcomes = await Promise.all([
        store.changeRole(orgA, ada.id, 'viewer', later(2)),
        store.changeRole(orgA, bo.id, 'viewer', later(2)),
      ]);
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['done', 'last_owner']);
      expect((await store.listMembers(orgA)).filter((m) => m.role === 'owner')).toHaveLength(1);
    });

    it('each change done at once to one member reports the role it replaced: the changes form one chain', async () => {
      const ada = member(orgA, `ada-${randomUUID()}@example.com`);
      const cy = member(orgA, `cy-${randomUUID()}@example.com`, 'viewer');
      await store.createMember(ada);
      await store.createMember(cy);
      const roles = ['admin', 'owner', 'viewer', 'admin'] as const;
      const changes = await Promise.all(roles.map((role, i) => store.changeRole(orgA, cy.id, role, later(3 + i))));
      // Applied one after another in some order, the previous roles are the first role and every new role but the last.
      const previous = changes.map((c) => (c.outcome === 'done' ? c.previous_role : c.outcome));
      const finalRole = (await store.getMember(orgA, cy.id))!.role;
      expect([...previous, finalRole].sort()).toEqual([...roles, 'viewer'].sort());
    });

    it("removing a member ends their sessions; setPasswordHash changes only the organization's member", async () => {
      const ada = member(orgA, `ada-${randomUUID()}@example.com`);
      const bo = member(orgA, `bo-${randomUUID()}@example.com`, 'viewer');
      await store.createMember(ada);
      await store.createMember(bo);
      const s = session(bo);
      await store.createSession(s);
      expect(await store.setPasswordHash(orgB, bo.id, 'other', later(1))).toBe(false);
      expect(await store.setPasswordHash(orgA, bo.id, 'new-hash', later(1))).toBe(true);
      expect((await store.getMember(orgA, bo.id))?.password_hash).toBe('new-hash');
      expect(await store.removeMember(orgA, bo.id)).toEqual({ outcome: 'done', previous_role: 'viewer' });
      expect(await store.getMember(orgA, bo.id)).toBeNull();
      expect(await store.findSession(s.token_hash, T0)).toBeNull();
    });

    it('an invitation is used once, and not after it expired or was withdrawn', async () => {
      const once = invitation(orgA, 'x@example.com');
      const expired = invitation(orgA, 'y@example.com', { expires_at: later(10) });
      const withdrawn = invitation(orgA, 'z@example.com');
      for (const i of [once, expired, withdrawn]) await store.createInvitation(i);
      expect(await store.getInvitation(once.id)).toEqual(once);
      const both = await Promise.all([store.acceptInvitation(once.id, later(1)), store.acceptInvitation(once.id, later(1))]);
      expect(both.sort()).toEqual([false, true]);
      expect((await store.getInvitation(once.id))?.accepted_at).toBe(later(1));
      expect(await store.acceptInvitation(expired.id, later(10))).toBe(false);
      expect(await store.revokeInvitation(orgB, withdrawn.id, later(1))).toBe(false);
      expect(await store.revokeInvitation(orgA, withdrawn.id, later(1))).toBe(true);
      expect(await store.acceptInvitation(withdrawn.id, later(2))).toBe(false);
      expect(await store.revokeInvitation(orgA, once.id, later(2))).toBe(false);
    });

    it('keeps the member a reset link is for', async () => {
      const reset = invitation(orgA, 'reset@example.com', { resets_member_id: 'member-1', role: 'admin' });
      await store.createInvitation(reset);
      expect(await store.getInvitation(reset.id)).toEqual(reset);
    });

    it("lists an organization's pending invitations, newest first, expired ones too, never accepted, withdrawn or others'", async () => {
      const org = randomUUID();
      const old = invitation(org, 'old@example.com', { expires_at: later(5) });
      const fresh = invitation(org, 'fresh@example.com', { created_at: later(1) });
      const used = invitation(org, 'used@example.com');
      const gone = invitation(org, 'gone@example.com');
      for (const i of [old, fresh, used, gone, invitation(randomUUID(), 'other@example.com')]) await store.createInvitation(i);
      await store.acceptInvitation(used.id, later(1));
      await store.revokeInvitation(org, gone.id, later(1));
      expect((await store.listPendingInvitations(org)).map((i) => i.email)).toEqual(['fresh@example.com', 'old@example.com']);
    });

    it('sessions: found until they expire, moved forward when touched, ended one by one or all but one', async () => {
      const ada = member(orgA, `ada-${randomUUID()}@example.com`);
      await store.createMember(ada);
      const [one, two, three] = [session(ada), session(ada), session(ada)];
      for (const s of [one, two, three]) await store.createSession(s);
      expect(await store.findSession(one.token_hash, later(1))).toEqual(one);
      expect(await store.findSession(one.token_hash, later(600))).toBeNull();
      await store.touchSession(one.token_hash, later(500), later(1100));
      expect(await store.findSession(one.token_hash, later(700))).toMatchObject({ last_seen_at: later(500), expires_at: later(1100) });
      await store.deleteSession(two.token_hash);
      expect(await store.findSession(two.token_hash, later(1))).toBeNull();
      expect(await store.deleteMemberSessions(ada.id, one.token_hash)).toBe(1);
      expect(await store.findSession(three.token_hash, later(1))).toBeNull();
      expect(await store.findSession(one.token_hash, later(1))).not.toBeNull();
      expect(await store.deleteMemberSessions(ada.id, null)).toBe(1);
      expect(await store.findSession(one.token_hash, later(1))).toBeNull();
    });

    it('a password change moves the session that made it to the new password and ends every other one, in one write, only from the hash the caller proved', async () => {
      const ada = member(orgA, `ada-${randomUUID()}@example.com`);
      const bo = member(orgA, `bo-${randomUUID()}@example.com`);
      await store.createMember(ada);
      await store.createMember(bo);
      const [kept, other, legacy, bos] = [session(ada), session(ada), session(ada, { password_fingerprint: null }), session(bo)];
      for (const s of [kept, other, legacy, bos]) await store.createSession(s);
      const keep = { tokenHash: kept.token_hash, fingerprint: 'fp-2' };
      const from = ada.password_hash;
      // Another organization's member, or no member: nothing changes.
      expect(await store.changeOwnPassword(orgB, ada.id, { from, to: 'stolen' }, later(1), keep)).toBeNull();
      expect(await store.changeOwnPassword(orgA, randomUUID(), { from, to: 'stolen' }, later(1), keep)).toBeNull();
      // A hash that is no longer the member's (another change came first): nothing changes.
      expect(await store.changeOwnPassword(orgA, ada.id, { from: 'an-old-hash', to: 'stolen' }, later(1), keep)).toBeNull();
      // A session of someone else named as the one to keep: nothing changes, not even the hash.
      expect(
        await store.changeOwnPassword(orgA, ada.id, { from, to: 'stolen' }, later(1), { tokenHash: bos.token_hash, fingerprint: 'fp-3' }),
      ).toBeNull();
      expect((await store.getMember(orgA, ada.id))?.password_hash).toBe(from);
      expect(await store.findSession(kept.token_hash, later(1))).toMatchObject({ password_fingerprint: 'fp-1' });
      expect(await store.findSession(bos.token_hash, later(1))).toMatchObject({ password_fingerprint: 'fp-1' });
      expect(await store.findSession(other.token_hash, later(1))).not.toBeNull();

      expect(await store.changeOwnPassword(orgA, ada.id, { from, to: 'new-hash' }, later(1), keep)).toBe(2);
      expect((await store.getMember(orgA, ada.id))?.password_hash).toBe('new-hash');
      expect(await store.findSession(kept.token_hash, later(1))).toMatchObject({ password_fingerprint: 'fp-2' });
      expect(await store.findSession(other.token_hash, later(1))).toBeNull();
      expect(await store.findSession(legacy.token_hash, later(1))).toBeNull();
      expect(await store.findSession(bos.token_hash, later(1))).toMatchObject({ password_fingerprint: 'fp-1' });

      // Two changes from the same password at once (two tabs): the first is made; the second, its session
      // ended by the first and its hash no longer the member's, changes nothing and is refused.
      expect(
        await store.changeOwnPassword(orgA, ada.id, { from, to: 'second' }, later(2), { tokenHash: other.token_hash, fingerprint: 'fp-4' }),
      ).toBeNull();
      expect((await store.getMember(orgA, ada.id))?.password_hash).toBe('new-hash');
      expect(await store.findSession(kept.token_hash, later(2))).toMatchObject({ password_fingerprint: 'fp-2' });
    });
  });
}
