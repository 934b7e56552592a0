import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleClient, cookieAttributes, inviteByOperator, organizationWithOwner, PASSWORD } from '../support/console-client';
import { ADMIN_TOKEN, call, freePort, PEOPLE_FIELDS, startService, type Service, upload, waitForRun } from '../support/service-harness';

/** The console's API (docs/console.md) over HTTP: sign-in, sessions, CSRF, roles, organization scoping. */
describe('console API', () => {
  let svc: Service;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(() => svc?.stop());

  describe('invitations and sign-in', () => {
    it('the operator invites the first owner; accepting sets a session cookie that is HttpOnly, SameSite, Path=/console', async () => {
      const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Invited' } });
      const invitation = await inviteByOperator(svc, org.body.id, 'First.Owner@Example.com');
      expect(invitation).toMatchObject({ email: 'first.owner@example.com', role: 'owner' });
      expect(Date.parse(invitation.expires_at) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
      expect(invitation.url).toMatch(new RegExp(`^${svc.baseUrl}/console/invitations/${invitation.id}\\?signature=`));

      const person = new ConsoleClient(svc.baseUrl);
      const id = invitation.id;
      const signature = new URL(invitation.url).searchParams.get('signature');
      expect((await person.get(`/invitations/${id}?signature=${signature}`)).body.data).toEqual({
        email: 'first.owner@example.com',
        role: 'owner',
        organization_name: 'Invited',
        expires_at: invitation.expires_at,
        password_reset: false,
      });
      const weak = await person.accept(invitation.url, 'Ada', 'short');
      expect(weak).toMatchObject({ status: 422, body: { error: { fields: { password: [expect.stringContaining('12 characters')] } } } });

      const res = await call(`${svc.baseUrl}/console/api/invitations/${id}/accept?signature=${signature}`, {
        body: { display_name: 'Ada', password: PASSWORD },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        member: { email: 'first.owner@example.com', display_name: 'Ada', role: 'owner' },
        organization: { id: org.body.id, name: 'Invited' },
        csrf_token: expect.any(String),
      });
      const cookie = cookieAttributes(res.headers.get('set-cookie')!);
      expect(cookie).toMatchObject({ httponly: true, samesite: 'Strict', path: '/console' });
      expect(cookie.secure).toBeUndefined(); // the test service is reached over http
      expect(String(cookie.value).length).toBeGreaterThanOrEqual(43);
      expect(JSON.stringify(res.body)).not.toContain(String(cookie.value));
    });

    it('an invitation works once; a changed signature is not found', async () => {
      const { org } = await organizationWithOwner(svc, 'Once');
      const invitation = await inviteByOperator(svc, org.id, 'twice@example.com', 'admin');
      expect((await new ConsoleClient(svc.baseUrl).accept(invitation.url, 'One', PASSWORD)).status).toBe(200);
      const again = await new ConsoleClient(svc.baseUrl).accept(invitation.url, 'Two', PASSWORD);
      expect(again).toMatchObject({ status: 409, body: { error: { code: 'invitation_used' } } });

      const other = await inviteByOperator(svc, org.id, 'forged@example.com');
      const forged = other.url.replace(/signature=.../, 'signature=AAA');
      expect(await new ConsoleClient(svc.baseUrl).accept(forged, 'F', PASSWORD)).toMatchObject({
        status: 404,
        body: { error: { code: 'not_found' } },
      });
    });

    it('names shown to others refuse control characters and direction overrides (a name that reads as another)', async () => {
      const { org } = await organizationWithOwner(svc, 'Names');
      const invitation = await inviteByOperator(svc, org.id, 'spoof@example.com', 'admin');
      for (const name of ['Ada\u202Enimda', 'Ada\nLovelace', 'Ada\u0000', 'Ada\u2028Lovelace']) {
        expect(await new ConsoleClient(svc.baseUrl).accept(invitation.url, name, PASSWORD)).toMatchObject({
          status: 422,
          body: {
            error: { fields: { display_name: [expect.stringMatching(/control characters, text direction overrides or lone surrogates/)] } },
          },
        });
      }
      // Characters as a person counts them, as the admin API counts names: 100 emoji (200 UTF-16 units) are 100.
      const tooLong = await new ConsoleClient(svc.baseUrl).accept(invitation.url, '\u{1F98A}'.repeat(101), PASSWORD);
      expect(tooLong).toMatchObject({
        status: 422,
        body: { error: { fields: { display_name: ['The name must be at most 100 characters long.'] } } },
      });
      // Marks a language needs stay: a zero-width non-joiner (Persian), a right-to-left mark.
      expect((await new ConsoleClient(svc.baseUrl).accept(invitation.url, 'می\u200Cخواهم \u200F', PASSWORD)).status).toBe(200);
      const emoji = await inviteByOperator(svc, org.id, 'emoji@example.com', 'admin');
      expect((await new ConsoleClient(svc.baseUrl).accept(emoji.url, '\u{1F98A}'.repeat(100), PASSWORD)).status).toBe(200);
      const org2 = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Acme\u2066 Bank' } });
      expect(org2).toMatchObject({ status: 422, body: { error: { fields: { name: [expect.any(String)] } } } });
      const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.id}/schemas`, {
        token: ADMIN_TOKEN,
        body: { name: 'People\tlist', fields: { ...PEOPLE_FIELDS, email: { ...PEOPLE_FIELDS.email, label: 'E-mail\u202Eliam' } } },
      });
      expect(schema).toMatchObject({
        status: 422,
        body: { error: { fields: { name: [expect.any(String)], 'fields.email.label': [expect.any(String)] } } },
      });
      const provider = await call(`${svc.baseUrl}/admin/v1/organizations/${org.id}/providers`, {
        token: ADMIN_TOKEN,
        body: { name: 'Vendor', provider: 'openai', model: 'gpt\u202E4' },
      });
      expect(provider).toMatchObject({ status: 422, body: { error: { fields: { model: [expect.any(String)] } } } });
      const invited = await call(`${svc.baseUrl}/admin/v1/organizations/${org.id}/invitations`, {
        token: ADMIN_TOKEN,
        body: { email: 'evil\u202Emoc.liame@example.com' },
      });
      expect(invited).toMatchObject({ status: 422, body: { error: { fields: { email: [expect.any(String)] } } } });
    });

    it('an e-mail signs in to one account: accepting an invitation for an e-mail that has one is refused', async () => {
      const { email } = await organizationWithOwner(svc, 'Taken');
      // Invited to another organization (an invitation to its own is refused when sent).
      const { org: other } = await organizationWithOwner(svc, 'Taken elsewhere');
      const invitation = await inviteByOperator(svc, other.id, email.toUpperCase(), 'viewer');
      expect(await new ConsoleClient(svc.baseUrl).accept(invitation.url, 'Dup', PASSWORD)).toMatchObject({
        status: 409,
        body: { error: { code: 'email_taken' } },
      });
    });

    it('sign-out ends the session; signing out of every other session keeps this one', async () => {
      const { email } = await organizationWithOwner(svc, 'Sessions');
      const laptop = new ConsoleClient(svc.baseUrl);
      const phone = new ConsoleClient(svc.baseUrl);
      for (const c of [laptop, phone]) expect((await c.signIn(email, PASSWORD)).status).toBe(200);
      expect((await laptop.post('/session/others/sign-out')).body.data).toEqual({ ended: 2 }); // the phone's and the invitation's
      expect((await phone.get('/session')).status).toBe(401);
      expect((await laptop.get('/session')).status).toBe(200);
      const out = await laptop.delete('/session');
      expect(out.status).toBe(204);
      expect(cookieAttributes(out.headers.get('set-cookie')!).value).toBe('');
      expect(laptop.cookie).toBeNull();
    });

    it('changing the password asks for the current one and ends the other sessions', async () => {
      const { owner, email } = await organizationWithOwner(svc, 'Password');
      const other = new ConsoleClient(svc.baseUrl);
      expect((await other.signIn(email, PASSWORD)).status).toBe(200);
      expect(await owner.put('/me/password', { current_password: 'wrong', new_password: 'a brand new password' })).toMatchObject({
        status: 422,
        body: { error: { fields: { current_password: ['The current password is not right.'] } } },
      });
      // The current password again is no change: refused before it is checked.
      expect(await owner.put('/me/password', { current_password: PASSWORD, new_password: PASSWORD })).toMatchObject({
        status: 422,
        body: { error: { fields: { new_password: ['The new password is the current one; choose another.'] } } },
      });
      expect((await other.get('/session')).status).toBe(200);
      expect((await owner.put('/me/password', { current_password: PASSWORD, new_password: 'a brand new password' })).status).toBe(204);
      expect((await other.get('/session')).status).toBe(401);
      expect((await owner.get('/session')).status).toBe(200);
    });
  });

  describe('CSRF and separation from the APIs', () => {
    it('refuses a change without the CSRF token, or from another origin, with 403', async () => {
      const { owner } = await organizationWithOwner(svc, 'Csrf');
      const noToken = await owner.request('POST', '/api-keys', { body: {}, csrf: null });
      expect(noToken).toMatchObject({ status: 403, body: { error: { code: 'csrf_failed' } } });
      const wrongToken = await owner.request('POST', '/api-keys', { body: {}, csrf: 'x'.repeat(32) });
      expect(wrongToken.status).toBe(403);
      const elsewhere = await owner.request('POST', '/api-keys', { body: {}, origin: 'https://attacker.example' });
      expect(elsewhere).toMatchObject({ status: 403, body: { error: { code: 'csrf_failed' } } });
      const signIn = await new ConsoleClient(svc.baseUrl).request('POST', '/session', {
        body: { email: 'x@example.com', password: 'y' },
        origin: 'https://attacker.example',
      });
      expect(signIn.status).toBe(403);
      // Reads need no token; the same change with it goes through.
      expect((await owner.get('/api-keys')).status).toBe(200);
      expect((await owner.post('/api-keys')).status).toBe(201);
    });

    it('an API key or the admin token cannot open the console; the console cookie cannot call /v1 or /admin/v1', async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Separate');
      for (const token of [org.api_key, ADMIN_TOKEN]) {
        expect((await call(`${svc.baseUrl}/console/api/session`, { token })).status).toBe(401);
        expect((await call(`${svc.baseUrl}/console/api/schemas`, { token })).status).toBe(401);
      }
      const cookie = { cookie: `console_session=${owner.cookie}` };
      expect((await call(`${svc.baseUrl}/v1/schemas`, { headers: cookie })).status).toBe(401);
      expect((await call(`${svc.baseUrl}/admin/v1/organizations/${org.id}/api-keys`, { headers: cookie })).status).toBe(401);
    });
  });

  describe('what members do', () => {
    it('issues a key shown once that works on /v1, lists it by prefix with its last use, and revokes it', async () => {
      const { owner } = await organizationWithOwner(svc, 'Keys');
      const issued = await owner.post('/api-keys');
      expect(issued.status).toBe(201);
      const { id, api_key: key, prefix } = issued.body.data;
      expect(key.slice(4, 12)).toBe(prefix);
      expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key })).status).toBe(200);
      const listed = await owner.get('/api-keys');
      expect(JSON.stringify(listed.body)).not.toContain(key.slice(4, 13));
      expect(listed.body.data.find((k: { id: string }) => k.id === id)).toMatchObject({ prefix, revoked_at: null });
      // Its use on /v1 is recorded (to the minute, written beside the request).
      let lastUsed: string | null = null;
      for (let i = 0; i < 50 && !lastUsed; i++) {
        lastUsed = (await owner.get('/api-keys')).body.data.find((k: { id: string }) => k.id === id).last_used_at;
        if (!lastUsed) await new Promise((r) => setTimeout(r, 20));
      }
      expect(Date.now() - Date.parse(lastUsed!)).toBeLessThan(60_000);
      expect((await owner.delete(`/api-keys/${id}`)).status).toBe(204);
      expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key })).status).toBe(401);
    });

    it('inviting an address again withdraws its earlier link', async () => {
      const { owner } = await organizationWithOwner(svc, 'Reinvited');
      const first = (await owner.post('/invitations', { email: 'again@example.com', role: 'viewer' })).body.data;
      const second = (await owner.post('/invitations', { email: 'again@example.com', role: 'admin' })).body.data;
      const pending = (await owner.get('/invitations')).body.data as Array<{ id: string; email: string; role: string }>;
      expect(pending.filter((i) => i.email === 'again@example.com').map((i) => [i.id, i.role])).toEqual([[second.id, 'admin']]);
      expect(await new ConsoleClient(svc.baseUrl).accept(first.url, 'Again', PASSWORD)).toMatchObject({
        status: 409,
        body: { error: { code: 'invitation_used' } },
      });
      const invitee = new ConsoleClient(svc.baseUrl);
      expect((await invitee.accept(second.url, 'Again', PASSWORD)).status).toBe(200);
      expect(invitee.session!.member.role).toBe('admin');
      const audit = (await owner.get('/audit')).body.data as Array<{ type: string; details: Record<string, unknown> }>;
      expect(audit.find((e) => e.type === 'InvitationRevoked')?.details).toEqual({
        invitation_id: first.id,
        email: 'again@example.com',
        role: 'viewer',
      });
      // A member of another organization is not told apart from any address: invited, refused only when accepting.
      const { email: elsewhere } = await organizationWithOwner(svc, 'Elsewhere owner');
      const toElsewhere = (await owner.post('/invitations', { email: elsewhere, role: 'viewer' })).body.data;
      expect(
        (await owner.get(`/invitations/${toElsewhere.id}?signature=${new URL(toElsewhere.url).searchParams.get('signature')}`)).body.data,
      ).toMatchObject({ password_reset: false });
    });

    it('a member invited again sets a new password with the link (name and role kept, every other session ended); the last owner too, by the operator', async () => {
      const { org, owner, email } = await organizationWithOwner(svc, 'Forgotten');
      const joined = (await owner.post('/invitations', { email: 'forgetful@example.com', role: 'admin' })).body.data;
      const member = new ConsoleClient(svc.baseUrl);
      expect((await member.accept(joined.url, 'Forgetful Admin', PASSWORD)).status).toBe(200);
      const memberId = member.session!.member.id;
      // Invited again, with another role chosen in the form: the role stays the member's.
      expect(joined.password_reset).toBe(false);
      const reset = (await owner.post('/invitations', { email: 'Forgetful@Example.com', role: 'viewer' })).body.data;
      expect(reset).toMatchObject({ role: 'admin', password_reset: true });
      const signature = new URL(reset.url).searchParams.get('signature');
      expect((await new ConsoleClient(svc.baseUrl).get(`/invitations/${reset.id}?signature=${signature}`)).body.data).toMatchObject({
        email: 'forgetful@example.com',
        password_reset: true,
      });
      const newPassword = 'a brand new passphrase for the admin';
      // Locked out by failed sign-ins first: the reset ends the lock the 429 sent them to the link with.
      for (let i = 0; i < 6; i++) await new ConsoleClient(svc.baseUrl).signIn('forgetful@example.com', 'not the password at all');
      expect((await new ConsoleClient(svc.baseUrl).signIn('forgetful@example.com', PASSWORD)).status).toBe(429);
      const again = new ConsoleClient(svc.baseUrl);
      const accepted = await again.accept(reset.url, '', newPassword);
      expect(accepted.status).toBe(200);
      expect(again.session!.member).toMatchObject({ id: memberId, role: 'admin', email: 'forgetful@example.com' });
      expect(accepted.body.data.member.display_name).toBe('Forgetful Admin');
      // The old session is over, the old password refused, the new one taken; the link is used.
      expect((await member.get('/session')).status).toBe(401);
      expect((await new ConsoleClient(svc.baseUrl).signIn('forgetful@example.com', PASSWORD)).status).toBe(401);
      expect((await new ConsoleClient(svc.baseUrl).signIn('forgetful@example.com', newPassword)).status).toBe(200);
      expect((await new ConsoleClient(svc.baseUrl).accept(reset.url, '', 'yet another passphrase here')).status).toBe(409);
      const audit = (await owner.get('/audit')).body.data as Array<{ type: string; actor: unknown; details: Record<string, unknown> }>;
      expect(audit.find((e) => e.type === 'MemberPasswordReset')).toMatchObject({
        actor: { member_id: memberId, email: 'forgetful@example.com' },
        details: { invitation_id: reset.id, member_id: memberId, email: 'forgetful@example.com', invited_by: owner.session!.member.id },
      });
      expect(audit.find((e) => e.details.invitation_id === reset.id && e.type === 'MemberInvited')?.details).toMatchObject({
        password_reset: true,
      });
      expect(JSON.stringify(audit)).not.toContain(newPassword);

      // A reset link for a member removed since gives nothing: no account is made from it, with the role it carried.
      const stale = (await owner.post('/invitations', { email: 'forgetful@example.com' })).body.data;
      expect((await owner.delete(`/members/${memberId}`)).status).toBe(204);
      expect(await new ConsoleClient(svc.baseUrl).accept(stale.url, 'Back Door', 'a passphrase to get back in')).toMatchObject({
        status: 409,
        body: { error: { code: 'invitation_used' } },
      });
      expect((await owner.get('/members')).body.data.map((m: { email: string }) => m.email)).not.toContain('forgetful@example.com');

      // An owner's password is not reset by another owner (the link goes back to whoever made it): by the operator.
      expect(await owner.post('/invitations', { email })).toMatchObject({
        status: 409,
        body: { error: { code: 'owner_reset_by_operator' } },
      });
      const byOperator = await inviteByOperator(svc, org.id, email, 'viewer');
      expect(byOperator.role).toBe('owner');
      const ownerAgain = new ConsoleClient(svc.baseUrl);
      expect((await ownerAgain.accept(byOperator.url, '', 'the owner remembers this one')).status).toBe(200);
      expect(ownerAgain.session!.member.role).toBe('owner');
      expect((await owner.get('/session')).status).toBe(401);
      // A short password is refused, and the link stays usable.
      const third = await inviteByOperator(svc, org.id, email);
      expect((await new ConsoleClient(svc.baseUrl).accept(third.url, '', 'short')).status).toBe(422);
      expect((await new ConsoleClient(svc.baseUrl).accept(third.url, '', 'now a long enough one')).status).toBe(200);
    });

    it("a link stands only while what it was made on holds: its maker an owner, a reset link's member not made an owner", async () => {
      const { owner } = await organizationWithOwner(svc, 'Links that lapse');
      const join = async (address: string, role: string) => {
        const link = (await owner.post('/invitations', { email: address, role })).body.data;
        const person = new ConsoleClient(svc.baseUrl);
        expect((await person.accept(link.url, address.split('@')[0], PASSWORD)).status).toBe(200);
        return person;
      };
      const preview = (link: { id: string; url: string }) =>
        new ConsoleClient(svc.baseUrl).get(`/invitations/${link.id}?signature=${new URL(link.url).searchParams.get('signature')}`);
      const second = await join('second-owner@example.com', 'owner');
      const admin = await join('lapse-admin@example.com', 'admin');
      const viewer = await join('lapse-viewer@example.com', 'viewer');

      // A reset link made for an admin who is then made an owner: an owner does not reset another owner's password.
      const reset = (await owner.post('/invitations', { email: 'lapse-admin@example.com' })).body.data;
      expect(reset.password_reset).toBe(true);
      expect((await owner.patch(`/members/${admin.session!.member.id}`, { role: 'owner' })).status).toBe(200);
      // Withdrawn by the promotion itself (the link is refused either way: owner_reset_by_operator had it been used first).
      const taken = { status: 409, body: { error: { code: 'invitation_used' } } };
      expect(await preview(reset)).toMatchObject(taken);
      expect(await new ConsoleClient(svc.baseUrl).accept(reset.url, '', 'the password of a takeover')).toMatchObject(taken);
      expect((await admin.get('/session')).status).toBe(200);

      // The links of an owner who is removed lapse with them: no way back in through a link of their own.
      const backDoor = (await second.post('/invitations', { email: 'back-door@example.com', role: 'owner' })).body.data;
      const viewerReset = (await second.post('/invitations', { email: 'lapse-viewer@example.com' })).body.data;
      expect((await preview(backDoor)).status).toBe(200);
      expect((await owner.delete(`/members/${second.session!.member.id}`)).status).toBe(204);
      const lapsed = { status: 409, body: { error: { code: 'invitation_used' } } };
      for (const link of [backDoor, viewerReset]) expect(await preview(link)).toMatchObject(lapsed);
      // Withdrawn, not only refused: gone from the pending list, in the audit log by who removed their maker.
      const pending = (await owner.get('/invitations')).body.data.map((i: { id: string }) => i.id);
      expect(pending).not.toContain(backDoor.id);
      expect(pending).not.toContain(viewerReset.id);
      expect(pending).not.toContain(reset.id);
      const withdrawn = (await owner.get('/audit')).body.data.filter((e: { type: string }) => e.type === 'InvitationRevoked');
      expect(withdrawn.map((e: { details: { invitation_id: string } }) => e.details.invitation_id)).toEqual(
        expect.arrayContaining([backDoor.id, viewerReset.id, reset.id]),
      );
      expect(await new ConsoleClient(svc.baseUrl).accept(backDoor.url, 'Back Door', PASSWORD)).toMatchObject(lapsed);
      expect(await new ConsoleClient(svc.baseUrl).accept(viewerReset.url, '', 'the password of a takeover')).toMatchObject(lapsed);
      expect((await viewer.get('/session')).status).toBe(200);
      // A reset link for a member removed since: its preview says it is spent, as using it would.
      const removedReset = (await owner.post('/invitations', { email: 'lapse-viewer@example.com' })).body.data;
      expect((await owner.delete(`/members/${viewer.session!.member.id}`)).status).toBe(204);
      expect(await preview(removedReset)).toMatchObject(lapsed);
    });

    it('refuses an e-mail address with half a character or an unseen one (it would read as another address)', async () => {
      const { owner } = await organizationWithOwner(svc, 'Unseen');
      for (const email of ['\ud800@example.com', 'a\udc00b@example.com', 'unseen@example.com\u200b', 'un\u2060seen@example.com']) {
        expect({ email, answer: await owner.post('/invitations', { email }) }).toMatchObject({
          email,
          answer: { status: 422, body: { error: { code: 'validation_failed', fields: { email: [expect.any(String)] } } } },
        });
      }
    });

    it('issues a key with a name, lists it by that name, and the audit log names it when it is issued and revoked', async () => {
      const { owner } = await organizationWithOwner(svc, 'Named keys');
      const issued = await owner.post('/api-keys', { name: 'Nightly export' });
      expect(issued).toMatchObject({ status: 201, body: { data: { name: 'Nightly export', prefix: expect.any(String) } } });
      const { id, prefix } = issued.body.data;
      expect((await owner.get('/api-keys')).body.data.find((k: { id: string }) => k.id === id)).toMatchObject({ name: 'Nightly export' });
      expect(await owner.post('/api-keys', { name: 'n'.repeat(101) })).toMatchObject({
        status: 422,
        body: { error: { code: 'validation_failed', fields: { name: [expect.stringMatching(/100 characters/)] } } },
      });
      expect((await owner.delete(`/api-keys/${id}`)).status).toBe(204);
      const audit = (await owner.get('/audit')).body.data as Array<{ type: string; details: Record<string, unknown> }>;
      expect(audit.filter((e) => e.details.api_key_id === id).map((e) => [e.type, e.details])).toEqual([
        ['ApiKeyRevoked', { api_key_id: id, prefix, name: 'Nightly export' }],
        ['ApiKeyIssued', { api_key_id: id, prefix, name: 'Nightly export' }],
      ]);
    });

    it("takes ids in the path in any letter case, as the public API does; another organization's stay 404", async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Cases');
      const { owner: stranger } = await organizationWithOwner(svc, 'Elsewhere');
      const schema = (await owner.post('/schemas', { name: 'People', fields: PEOPLE_FIELDS })).body.data;
      const upper = (id: string) => id.toUpperCase();
      expect(await owner.get(`/schemas/${upper(schema.id)}`)).toMatchObject({ status: 200, body: { data: { id: schema.id } } });
      expect((await stranger.get(`/schemas/${upper(schema.id)}`)).status).toBe(404);
      const keys = await call(`${svc.baseUrl}/admin/v1/organizations/${upper(org.id)}/api-keys`, { token: ADMIN_TOKEN });
      expect(keys).toMatchObject({ status: 200, body: { data: [expect.objectContaining({ id: org.api_key_id })] } });
      const replaced = await call(`${svc.baseUrl}/admin/v1/organizations/${upper(org.id)}/schemas/${upper(schema.id)}`, {
        token: ADMIN_TOKEN,
        method: 'PUT',
        body: { name: 'Persons', fields: PEOPLE_FIELDS },
      });
      expect(replaced).toMatchObject({ status: 200, body: { data: { id: schema.id, name: 'Persons' } } });
    });

    it('writes a schema with the admin API rules and messages; the public API reads it', async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Schemas');
      const bad = await owner.post('/schemas', { name: '', fields: {} });
      expect(bad).toMatchObject({
        status: 422,
        body: { error: { code: 'validation_failed', fields: { name: expect.any(Array), fields: expect.any(Array) } } },
      });
      // A name of blanks alone shows as nothing: required, as an empty one is.
      const blank = await owner.post('/schemas', { name: ' \u00a0 ', fields: PEOPLE_FIELDS });
      expect([blank.status, blank.body.error.fields]).toEqual([422, { name: ['The name field is required.'] }]);
      const created = await owner.post('/schemas', { name: 'People', fields: PEOPLE_FIELDS });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect((await owner.put(`/schemas/${id}`, { name: 'Persons', fields: PEOPLE_FIELDS })).body.data.name).toBe('Persons');
      const publicView = await call(`${svc.baseUrl}/v1/schemas/${id}`, { token: org.api_key });
      expect(publicView.body.data).toMatchObject({ id, name: 'Persons' });
      expect((await owner.delete(`/schemas/${id}`)).status).toBe(204);
      expect((await owner.get(`/schemas/${id}`)).status).toBe(404);
    });

    it("never gives a viewer a webhook URL's credentials: settings, test event, audit log, history, deliveries", async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Credentials in URLs');
      const closed = await freePort();
      const url = `http://hook-user:s3cret-pw@127.0.0.1:${closed}/in?token=tok-secret&team=team-7#frag-secret`;
      expect((await owner.put('/webhook', { url })).status).toBe(200);
      expect((await owner.post('/webhook/test', {})).status).toBe(200);
      const schema = (await owner.post('/schemas', { name: 'People', fields: PEOPLE_FIELDS })).body.data;
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.api_key,
        body: { schema_id: schema.id, filename: 'empty.csv', notify_url: url },
      });
      await upload(created.body, '');
      await waitForRun(svc, org.api_key, created.body.id, (r) => r.status === 'failed');
      const deliveries = async (client: ConsoleClient) => {
        for (let i = 0; i < 100; i++) {
          const page = await client.get(`/runs/${created.body.id}/deliveries`);
          if (page.body.data.length > 0) return page;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('no attempt was made');
      };
      const invitation = (await owner.post('/invitations', { email: 'url-viewer@example.com', role: 'viewer' })).body.data;
      const viewer = new ConsoleClient(svc.baseUrl);
      expect((await viewer.accept(invitation.url, 'Vi', PASSWORD)).status).toBe(200);
      const paths = ['/webhook', '/audit', `/runs/${created.body.id}/timeline`, '/deliveries'];
      const seenBy = async (client: ConsoleClient) =>
        JSON.stringify([...(await Promise.all(paths.map((p) => client.get(p)))).map((r) => r.body), (await deliveries(client)).body]);
      const viewerSaw = await seenBy(viewer);
      for (const secret of ['s3cret-pw', 'tok-secret', 'team-7', 'frag-secret'])
        expect({ secret, seen: viewerSaw.includes(secret) }).toEqual({ secret, seen: false });
      expect(viewerSaw).toContain(`http://hook-user:[hidden]@127.0.0.1:${closed}/in?token=[hidden]&team=[hidden]#[hidden]`);
      // Owners set the URL and see it whole.
      expect(await seenBy(owner)).toContain('s3cret-pw');
    });

    it('reveals the secret to owners (recorded), rotates it (the old one is gone), never to viewers', async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Secret');
      expect((await owner.post('/webhook/secret/reveal')).body.data.secret).toBe(org.webhook_secret);
      const rotated = (await owner.post('/webhook/secret/rotate')).body.data.secret;
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(org.webhook_secret);
      expect((await owner.post('/webhook/secret/reveal')).body.data.secret).toBe(rotated);

      const invitation = (await owner.post('/invitations', { email: 'viewer-secret@example.com', role: 'viewer' })).body.data;
      const viewer = new ConsoleClient(svc.baseUrl);
      expect((await viewer.accept(invitation.url, 'Vi', PASSWORD)).status).toBe(200);
      for (const [method, path] of [
        ['POST', '/webhook/secret/reveal'],
        ['POST', '/webhook/secret/rotate'],
        ['POST', '/api-keys'],
        ['PUT', '/webhook'],
        ['POST', '/schemas'],
        ['POST', '/invitations'],
      ]) {
        const res = await viewer.request(method, path, { body: {} });
        expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 403, code: 'forbidden' });
        expect(JSON.stringify(res.body)).not.toContain('whsec_');
      }
      expect((await viewer.get('/webhook')).status).toBe(200);

      const audit = (await owner.get('/audit')).body;
      const types = audit.data.map((e: { type: string }) => e.type);
      expect(types.slice(0, 5)).toEqual([
        'InvitationAccepted',
        'MemberInvited',
        'WebhookSecretRevealed',
        'WebhookSecretRotated',
        'WebhookSecretRevealed',
      ]);
      expect(audit.data[2].actor).toMatchObject({ email: owner.session!.member.email });
      expect(JSON.stringify(audit)).not.toContain('whsec_');
    });

    it("shows a run's review link and upload instructions to owners and admins, not to viewers (they act)", async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Review link');
      const schema = (await owner.post('/schemas', { name: 'People', fields: PEOPLE_FIELDS })).body.data.id;
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.api_key,
        body: { schema_id: schema, filename: 'people.csv' },
      });
      expect(run.status).toBe(201);
      const members: Record<string, ConsoleClient> = { owner };
      for (const role of ['admin', 'viewer'] as const) {
        const invitation = (await owner.post('/invitations', { email: `review-link-${role}@example.com`, role })).body.data;
        members[role] = new ConsoleClient(svc.baseUrl);
        expect((await members[role].accept(invitation.url, role, PASSWORD)).status).toBe(200);
      }
      for (const [role, member] of Object.entries(members)) {
        const shown = (await member.get(`/runs/${run.body.id}`)).body.data;
        const listed = (await member.get('/runs')).body.data.find((r: { id: string }) => r.id === run.body.id);
        const expected = role === 'viewer' ? null : run.body.review_url;
        expect({ role, shown: shown.review_url, listed: listed.review_url }).toEqual({ role, shown: expected, listed: expected });
        // The run waits for its file: its upload instructions (a signed PUT that starts it) are not a viewer's either.
        const upload = role === 'viewer' ? undefined : { url: run.body.upload.url, method: 'PUT' };
        expect({ role, shown: shown.upload, listed: listed.upload }).toMatchObject({ role, shown: upload, listed: upload });
        // Everything else of the run is the same for every role.
        const { upload: _ownersUpload, ...ownersRun } = (await owner.get(`/runs/${run.body.id}`)).body.data;
        const { upload: _shownUpload, ...shownRun } = shown;
        expect({ ...shownRun, review_url: null }).toEqual({ ...ownersRun, review_url: null });
      }
      // The public API's answer keeps it: an API key is the organization's own, not a member's.
      expect((await call(`${svc.baseUrl}/v1/transformations/${run.body.id}`, { token: org.api_key, method: 'GET' })).body.review_url).toBe(
        run.body.review_url,
      );
    });

    it('keeps one owner: the last owner cannot be demoted or removed; owners manage members, admins cannot', async () => {
      const { owner } = await organizationWithOwner(svc, 'Owners');
      const me = owner.session!.member.id;
      expect(await owner.patch(`/members/${me}`, { role: 'admin' })).toMatchObject({
        status: 409,
        body: { error: { code: 'last_owner' } },
      });
      expect((await owner.delete(`/members/${me}`)).status).toBe(409);
      const invitation = (await owner.post('/invitations', { email: 'admin-members@example.com', role: 'admin' })).body.data;
      const admin = new ConsoleClient(svc.baseUrl);
      await admin.accept(invitation.url, 'Ad', PASSWORD);
      expect((await admin.patch(`/members/${me}`, { role: 'viewer' })).status).toBe(403);
      expect((await owner.patch(`/members/${admin.session!.member.id}`, { role: 'owner' })).body.data.role).toBe('owner');
      expect((await owner.patch(`/members/${me}`, { role: 'viewer' })).body.data.role).toBe('viewer');
      // The role counts at once, in the session already open.
      expect((await owner.post('/api-keys')).status).toBe(403);
      expect((await admin.delete(`/members/${me}`)).status).toBe(204);
      expect((await owner.get('/session')).status).toBe(401);
    });
  });

  describe('the audit log', () => {
    it("records the operator's changes through the admin API as the operator's, naming what each was about", async () => {
      const { org, owner } = await organizationWithOwner(svc, 'Operated');
      const admin = (method: string, path: string, body?: unknown) =>
        call(`${svc.baseUrl}/admin/v1/organizations/${org.id}${path}`, { token: ADMIN_TOKEN, method, body });
      const key = (await admin('POST', '/api-keys', { name: 'Operator key' })).body;
      expect((await admin('DELETE', `/api-keys/${key.id}`)).status).toBe(204);
      expect((await admin('PUT', '/webhook', { url: 'https://example.com/hooks' })).status).toBe(200);
      expect((await admin('POST', '/webhook/rotate-secret')).status).toBe(200);
      expect((await admin('PUT', '/quota', { review_preparations: 5 })).status).toBe(200);
      expect((await admin('PUT', '/quota', { review_preparations: null })).status).toBe(200);
      const schema = (await admin('POST', '/schemas', { name: 'Ops people', fields: PEOPLE_FIELDS })).body.data;
      expect((await admin('PUT', `/schemas/${schema.id}`, { name: 'Ops people 2', fields: PEOPLE_FIELDS })).status).toBe(200);
      expect((await admin('DELETE', `/schemas/${schema.id}`)).status).toBe(204);
      const provider = (
        await admin('POST', '/providers', { name: 'Ops AI', provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-ops-secret' })
      ).body.data;
      expect((await admin('DELETE', `/providers/${provider.id}`)).status).toBe(204);
      // Refused calls record nothing.
      expect((await admin('PUT', '/quota', { review_preparations: -1 })).status).toBe(422);
      expect((await admin('DELETE', `/schemas/${schema.id}`)).status).toBe(404);

      const audit = (await owner.get('/audit?per_page=50')).body.data as Array<{
        type: string;
        actor: unknown;
        details: Record<string, unknown>;
      }>;
      const byOperator = audit.filter((e) => JSON.stringify(e.actor) === JSON.stringify({ operator: true }));
      expect(byOperator.map((e) => [e.type, e.details]).reverse()).toEqual([
        ['ApiKeyIssued', { api_key_id: org.api_key_id, prefix: org.api_key.slice(4, 12), name: null }],
        ['MemberInvited', expect.objectContaining({ role: 'owner' })],
        ['ApiKeyIssued', { api_key_id: key.id, prefix: key.prefix, name: 'Operator key' }],
        ['ApiKeyRevoked', { api_key_id: key.id, prefix: key.prefix, name: 'Operator key' }],
        ['WebhookUrlChanged', { url: 'https://example.com/hooks' }],
        ['WebhookSecretRotated', {}],
        ['ReviewQuotaChanged', { review_preparations: 5 }],
        ['ReviewQuotaChanged', { review_preparations: null }],
        ['SchemaSaved', { schema_id: schema.id, name: 'Ops people', created: true }],
        ['SchemaSaved', { schema_id: schema.id, name: 'Ops people 2', created: false }],
        ['SchemaDeleted', { schema_id: schema.id, name: 'Ops people 2' }],
        ['ProviderSaved', { provider_id: provider.id, name: 'Ops AI', created: true }],
        ['ProviderDeleted', { provider_id: provider.id, name: 'Ops AI' }],
      ]);
      expect(JSON.stringify(audit)).not.toMatch(/sk-ops-secret|whsec_|tsk_/);
    });

    it('names whose role changed (before and after), who was removed and whose invitation was withdrawn', async () => {
      const { owner } = await organizationWithOwner(svc, 'Audited');
      const joined = (await owner.post('/invitations', { email: 'audited-member@example.com', role: 'viewer' })).body.data;
      const member = new ConsoleClient(svc.baseUrl);
      await member.accept(joined.url, 'Audited Member', PASSWORD);
      const memberId = member.session!.member.id;
      expect((await owner.patch(`/members/${memberId}`, { role: 'admin' })).status).toBe(200);
      const pending = (await owner.post('/invitations', { email: 'audited-invitee@example.com', role: 'admin' })).body.data;
      expect((await owner.delete(`/invitations/${pending.id}`)).status).toBe(204);
      expect((await owner.delete(`/members/${memberId}`)).status).toBe(204);

      const audit = (await owner.get('/audit')).body.data;
      const entry = (type: string) => audit.find((e: { type: string }) => e.type === type);
      expect(entry('MemberRoleChanged').details).toEqual({
        member_id: memberId,
        email: 'audited-member@example.com',
        previous_role: 'viewer',
        role: 'admin',
      });
      expect(entry('InvitationRevoked').details).toEqual({
        invitation_id: pending.id,
        email: 'audited-invitee@example.com',
        role: 'admin',
      });
      expect(entry('MemberRemoved').details).toEqual({ member_id: memberId, email: 'audited-member@example.com', role: 'admin' });
      expect(audit[0].type).toBe('MemberRemoved');
      // The invitation links are bearer secrets: their signatures are never recorded.
      for (const url of [joined.url, pending.url]) expect(JSON.stringify(audit)).not.toContain(new URL(url).searchParams.get('signature')!);
      // Unknown ids are still 404, and record nothing.
      expect((await owner.patch(`/members/${memberId}`, { role: 'viewer' })).status).toBe(404);
      expect((await owner.delete(`/members/${memberId}`)).status).toBe(404);
      expect((await owner.delete(`/invitations/${pending.id}`)).status).toBe(404);
      expect((await owner.get('/audit')).body.data[0].id).toBe(audit[0].id);
    });

    it('names the API key revoked (its prefix), the schema and the AI provider deleted', async () => {
      const { owner } = await organizationWithOwner(svc, 'Audited things');
      const key = (await owner.post('/api-keys')).body.data;
      const schema = (await owner.post('/schemas', { name: 'Audited people', fields: PEOPLE_FIELDS })).body.data;
      const provider = (
        await owner.post('/providers', { name: 'Audited AI', provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-audited' })
      ).body.data;
      expect((await owner.delete(`/api-keys/${key.id}`)).status).toBe(204);
      expect((await owner.delete(`/schemas/${schema.id}`)).status).toBe(204);
      expect((await owner.delete(`/providers/${provider.id}`)).status).toBe(204);
      const [deletedProvider, deletedSchema, revoked] = (await owner.get('/audit')).body.data;
      expect(revoked).toMatchObject({ type: 'ApiKeyRevoked', details: { api_key_id: key.id, prefix: key.prefix } });
      expect(deletedSchema).toMatchObject({ type: 'SchemaDeleted', details: { schema_id: schema.id, name: 'Audited people' } });
      expect(deletedProvider).toMatchObject({ type: 'ProviderDeleted', details: { provider_id: provider.id, name: 'Audited AI' } });
      expect(JSON.stringify([revoked, deletedSchema, deletedProvider])).not.toContain('sk-audited');
    });
  });

  describe("another organization's ids", () => {
    it('answer 404 on every console call, as unknown ids do', async () => {
      const a = await organizationWithOwner(svc, 'Tenant A');
      const b = await organizationWithOwner(svc, 'Tenant B');
      const schema = (await a.owner.post('/schemas', { name: 'A', fields: PEOPLE_FIELDS })).body.data.id;
      const provider = (await a.owner.post('/providers', { name: 'A', provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-a' })).body
        .data.id;
      const key = (await a.owner.post('/api-keys')).body.data.id;
      const member = a.owner.session!.member.id;
      const invitation = (await a.owner.post('/invitations', { email: 'pending-a@example.com', role: 'viewer' })).body.data.id;
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: a.org.api_key,
        body: { schema_id: schema, filename: 'people.csv' },
      });
      expect(run.status).toBe(201);
      const runId = run.body.id ?? run.body.data?.id;
      expect((await a.owner.get(`/runs/${runId}`)).body.data.id).toBe(runId);
      expect((await a.owner.get(`/runs/${runId}/timeline`)).body.data.map((e: { type: string }) => e.type)).toEqual(['RunCreated']);
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/schemas/${schema}`],
        ['PUT', `/schemas/${schema}`, { name: 'B', fields: PEOPLE_FIELDS }],
        ['DELETE', `/schemas/${schema}`],
        ['GET', `/providers/${provider}`],
        ['PUT', `/providers/${provider}`, { name: 'B', provider: 'openai', model: 'x' }],
        ['DELETE', `/providers/${provider}`],
        ['DELETE', `/api-keys/${key}`],
        ['PATCH', `/members/${member}`, { role: 'viewer' }],
        ['DELETE', `/members/${member}`],
        ['DELETE', `/invitations/${invitation}`],
        ['GET', `/runs/${runId}`],
        ['GET', `/runs/${runId}/timeline`],
        ['GET', `/runs/${runId}/deliveries`],
        ['POST', `/runs/${runId}/deliveries/${randomUUID()}/resend`],
      ];
      for (const [method, path, body] of calls) {
        const res = await b.owner.request(method, path, { body });
        expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({ method, path, status: 404, code: 'not_found' });
      }
      // Nothing of A's changed.
      expect((await a.owner.get(`/schemas/${schema}`)).body.data.name).toBe('A');
      expect((await a.owner.get(`/providers/${provider}`)).body.data.name).toBe('A');
      expect((await a.owner.get('/api-keys')).body.data.find((k: { id: string }) => k.id === key).revoked_at).toBeNull();
      expect((await a.owner.get('/members')).body.data.map((m: { id: string }) => m.id)).toContain(member);
      expect((await a.owner.get('/invitations')).body.data.map((i: { id: string }) => i.id)).toContain(invitation);
      // Nor did B's audit log learn about A's people.
      expect(JSON.stringify((await b.owner.get('/audit')).body)).not.toContain(a.owner.session!.member.email);
      expect((await b.owner.get('/schemas')).body.data).toEqual([]);
      expect((await b.owner.get('/members')).body.data.map((m: { id: string }) => m.id)).not.toContain(member);
    });
  });
});

describe('console sign-in throttle', () => {
  it('wrong passwords and unknown e-mails get the same answer; failures are throttled per account, then per address', async () => {
    const svc = await startService({ CONSOLE_SIGNIN_ACCOUNT_LIMIT: '3', CONSOLE_SIGNIN_ADDRESS_LIMIT: '8' });
    try {
      const { email } = await organizationWithOwner(svc, 'Throttled');
      const client = new ConsoleClient(svc.baseUrl);
      const wrong = await client.signIn(email, 'not the password at all');
      const unknown = await client.signIn('nobody-here@example.com', 'not the password at all');
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toEqual({ ...wrong.body.error, request_id: unknown.body.error.request_id });
      expect((await client.signIn(email, 'another wrong password')).status).toBe(401);
      expect((await client.signIn(email, 'a third wrong password')).status).toBe(401);
      // Three failures for the account (the limit in this service): even the right password now waits.
      const limited = await client.signIn(email, PASSWORD);
      expect(limited).toMatchObject({ status: 429, body: { error: { code: 'too_many_sign_in_attempts' } } });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another account from the same address still can, until the address used up its 8.
      const { email: other } = await organizationWithOwner(svc, 'Neighbour');
      expect((await client.signIn(other, PASSWORD)).status).toBe(200);
      for (let i = 0; i < 4; i++) await client.signIn(`guess-${i}@example.com`, 'wrong wrong wrong');
      expect((await client.signIn(other, PASSWORD)).status).toBe(429);
    } finally {
      await svc.stop();
    }
  });
});

describe('console sign-in throttle under a burst', () => {
  it('sign-ins sent all at once get no more password checks than the limit', async () => {
    const svc = await startService({ CONSOLE_SIGNIN_ACCOUNT_LIMIT: '3' });
    try {
      const { email } = await organizationWithOwner(svc, 'Burst');
      const client = new ConsoleClient(svc.baseUrl);
      const answers = await Promise.all(Array.from({ length: 12 }, () => client.signIn(email, 'not the password at all')));
      expect(answers.filter((a) => a.status === 401)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(9);
    } finally {
      await svc.stop();
    }
  });
});

describe('console sessions across a restart and idle expiry', () => {
  it('a session keeps working when the service restarts on the same data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'console-restart-'));
    const port = String(await freePort());
    let svc = await startService({ PORT: port }, dataDir);
    const { owner } = await organizationWithOwner(svc, 'Restart');
    await svc.stop();
    svc = await startService({ PORT: port }, dataDir);
    try {
      expect((await owner.get('/session')).status).toBe(200);
      expect((await owner.post('/api-keys')).status).toBe(201);
    } finally {
      await svc.stop();
    }
  });

  it('a session opened with a password that has changed since is refused, even where nothing ended it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'console-fingerprint-'));
    const svc = await startService({}, dataDir);
    try {
      const { owner, email } = await organizationWithOwner(svc, 'Fingerprint');
      const other = new ConsoleClient(svc.baseUrl);
      expect((await other.signIn(email, PASSWORD)).status).toBe(200);
      // Sessions a password change did not end (a sign-in that checked the old password while a reset ran, or a crash
      // between setting the password and ending the sessions): the password is changed under them, in the store itself.
      const db = new Database(join(dataDir, 'read-model.sqlite'));
      try {
        const { password_hash } = db.prepare('SELECT password_hash FROM console_members WHERE email = ?').get(email) as {
          password_hash: string;
        };
        db.prepare('UPDATE console_members SET password_hash = ? WHERE email = ?').run(`${password_hash}x`, email);
      } finally {
        db.close();
      }
      expect(await other.get('/session')).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
      expect((await owner.get('/session')).status).toBe(401);
    } finally {
      await svc.stop();
    }
  });

  it('a session ends after the idle time; an invitation link ends after its time', async () => {
    const svc = await startService({ CONSOLE_SESSION_IDLE_SECONDS: '1', CONSOLE_INVITATION_TTL_SECONDS: '2' });
    try {
      const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Idle' } });
      const first = await inviteByOperator(svc, org.body.id, 'idle@example.com');
      const late = await inviteByOperator(svc, org.body.id, 'late@example.com');
      const owner = new ConsoleClient(svc.baseUrl);
      expect((await owner.accept(first.url, 'Idle', PASSWORD)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 3100)); // past the link's 2 s, rounded up to the whole second
      expect(await owner.get('/session')).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
      expect(await new ConsoleClient(svc.baseUrl).accept(late.url, 'Late', PASSWORD)).toMatchObject({
        status: 410,
        body: { error: { code: 'invitation_expired' } },
      });
    } finally {
      await svc.stop();
    }
  });
});
