import { Inject, Injectable, Logger } from '@nestjs/common';
import { ACCOUNT_STORE, type AccountStore, type Member, type Session } from '@app/accounts';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory } from '@app/directory';
import { ApiError } from '../../http/api-error';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import { hashSessionToken, newCsrfToken, newSessionToken, passwordFingerprint } from './session-cookie';
import { SignInThrottle } from './sign-in-throttle';

/** Who is calling the console: the member (as stored now), their session and organization. */
export interface ConsoleCaller {
  member: Member;
  session: Session;
  organization: { id: string; name: string };
}

/** What the console's session call answers: who is signed in, and the token state-changing calls carry. */
export interface SessionView {
  member: { id: string; email: string; display_name: string; role: Member['role'] };
  organization: { id: string; name: string };
  csrf_token: string;
}

export const sessionView = (caller: ConsoleCaller): SessionView => ({
  member: {
    id: caller.member.id,
    email: caller.member.email,
    display_name: caller.member.display_name,
    role: caller.member.role,
  },
  organization: caller.organization,
  csrf_token: caller.session.csrf_token,
});

const invalidCredentials = () =>
  new ApiError(401, 'invalid_credentials', 'authentication', 'The e-mail or password is not right. Check both and try again.');
export const notSignedIn = () => new ApiError(401, 'unauthenticated', 'authentication', 'Your session has ended. Sign in again to go on.');

/** A session's last_seen_at is written at most this often (or a tenth of the idle time, if shorter): reads stay reads. */
const TOUCH_EVERY_MS = 60_000;

/** Sign-in, sessions and passwords of console members (docs/console.md, "Sign-in and sessions"). */
@Injectable()
export class ConsoleSessions {
  private readonly logger = new Logger(ConsoleSessions.name);

  constructor(
    @Inject(ACCOUNT_STORE) private readonly accounts: AccountStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly throttle: SignInThrottle,
  ) {}

  /** Checks the e-mail and password (throttled); a new session and its cookie token when they are right. */
  async signIn(body: unknown, clientAddress: string): Promise<{ token: string; caller: ConsoleCaller }> {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const fields: Record<string, string[]> = {};
    if (typeof b.email !== 'string' || b.email.trim() === '') fields.email = ['Enter your e-mail address.'];
    if (typeof b.password !== 'string' || b.password === '') fields.password = ['Enter your password.'];
    if (Object.keys(fields).length > 0) throw ApiError.validation(fields);
    const email = (b.email as string).trim().toLowerCase().slice(0, 320);
    const attempt = await this.throttle.begin(email, clientAddress);
    const member = await this.accounts.findMemberByEmail(email).catch(async (err: unknown) => {
      await attempt.abandoned();
      throw err;
    });
    // The hash is checked either way: an unknown e-mail costs the same time as a wrong password.
    const right = await verifyPassword(member?.password_hash ?? null, b.password as string).catch(async (err: unknown) => {
      await attempt.abandoned();
      throw err;
    });
    if (!right || !member) {
      await attempt.failed();
      throw invalidCredentials();
    }
    await attempt.succeeded();
    return this.start(member);
  }

  /** A new session for a member (after sign-in or an accepted invitation). */
  async start(member: Member): Promise<{ token: string; caller: ConsoleCaller }> {
    const organization = await this.organizationOf(member.organization_id);
    const token = newSessionToken();
    const now = new Date();
    const session: Session = {
      token_hash: hashSessionToken(token),
      member_id: member.id,
      organization_id: member.organization_id,
      csrf_token: newCsrfToken(),
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: this.idleExpiry(now),
      password_fingerprint: passwordFingerprint(member.password_hash),
    };
    await this.accounts.createSession(session);
    return { token, caller: { member, session, organization } };
  }

  /** The caller a session cookie names, its idle expiry moved forward; 401 when it names no live session. */
  async resolve(token: string | null): Promise<ConsoleCaller> {
    if (!token) throw notSignedIn();
    const now = new Date();
    const session = await this.accounts.findSession(hashSessionToken(token), now.toISOString());
    if (!session) throw notSignedIn();
    // The member as stored now: a changed role counts at once, a removed member is out.
    const member = await this.accounts.getMember(session.organization_id, session.member_id);
    if (!member) {
      await this.accounts.deleteSession(session.token_hash);
      throw notSignedIn();
    }
    // Opened with a password that has changed since: a sign-in that checked the old password while a reset or a
    // change ran, or a session the change's "end every other session" missed (a crash between the two writes).
    // Refused, not deleted: the session that changed the password may be a write away from standing for the new one.
    if (session.password_fingerprint !== passwordFingerprint(member.password_hash)) throw notSignedIn();
    const touchEvery = Math.min(TOUCH_EVERY_MS, (this.config.console.sessionIdleSeconds * 1000) / 10);
    if (now.getTime() - Date.parse(session.last_seen_at) >= touchEvery) {
      await this.accounts.touchSession(session.token_hash, now.toISOString(), this.idleExpiry(now));
    }
    return { member, session, organization: await this.organizationOf(member.organization_id) };
  }

  async signOut(token: string | null): Promise<void> {
    if (token) await this.accounts.deleteSession(hashSessionToken(token));
  }

  /** Ends every session of the caller but this one. */
  signOutOthers(caller: ConsoleCaller): Promise<number> {
    return this.accounts.deleteMemberSessions(caller.member.id, caller.session.token_hash);
  }

  /** Replaces the caller's password (the current one is asked for) and ends their other sessions. */
  async changePassword(caller: ConsoleCaller, body: unknown, clientAddress: string): Promise<void> {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const fields: Record<string, string[]> = {};
    if (typeof b.current_password !== 'string' || b.current_password === '') fields.current_password = ['Enter your current password.'];
    const problem = passwordProblem(b.new_password);
    if (problem) fields.new_password = [problem];
    // Said before the current password is checked: it tells nothing of it, only that the two typed are one.
    else if (b.new_password === b.current_password) fields.new_password = ['The new password is the current one; choose another.'];
    if (Object.keys(fields).length > 0) throw ApiError.validation(fields);
    // Guessing the current password through this form is throttled like sign-in.
    const attempt = await this.throttle.begin(caller.member.email, clientAddress);
    const right = await verifyPassword(caller.member.password_hash, b.current_password as string).catch(async (err: unknown) => {
      await attempt.abandoned();
      throw err;
    });
    if (!right) {
      await attempt.failed();
      throw ApiError.validation({ current_password: ['The current password is not right.'] });
    }
    await attempt.succeeded();
    const passwordHash = await hashPassword(b.new_password as string);
    // This session stays signed in: it stands for the new password now. Every other one ends (and would be refused).
    const ended = await this.accounts.changeOwnPassword(
      caller.member.organization_id,
      caller.member.id,
      { from: caller.member.password_hash, to: passwordHash },
      new Date().toISOString(),
      {
        tokenHash: caller.session.token_hash,
        fingerprint: passwordFingerprint(passwordHash),
      },
    );
    // Refused: the member was removed, another change came first, or this session ended meanwhile.
    if (ended === null) throw notSignedIn();
    this.logger.log(`Member ${caller.member.id} changed their password; ${ended} other session(s) ended`);
  }

  private idleExpiry(now: Date): string {
    return new Date(now.getTime() + this.config.console.sessionIdleSeconds * 1000).toISOString();
  }

  private async organizationOf(id: string): Promise<{ id: string; name: string }> {
    const org = await this.directory.getOrganization(id);
    if (!org) throw notSignedIn();
    return { id: org.id, name: org.name };
  }
}
