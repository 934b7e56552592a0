import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ACCOUNT_STORE, type AccountStore, type Invitation, MEMBER_ROLES, type MemberRole } from '@app/accounts';
import { URL_SIGNER, type UrlSigner } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { AuditActor } from '@app/contracts';
import { DIRECTORY, type Directory } from '@app/directory';
import { HIDDEN_CONTROLS_PROBLEM, hasHiddenControls, isEmailAddress } from '@app/domain';
import isLength from 'validator/lib/isLength';
import { ApiError } from '../../http/api-error';
import { objectBodyOrNone } from '../../http/validate-body';
import { AuditLog } from '../../audit/audit-log';
import type { ConsoleCaller } from './console-sessions';
import { ConsoleSessions } from './console-sessions';
import { hashPassword, passwordProblem } from './passwords';
import { SignInThrottle } from './sign-in-throttle';

/** What creating an invitation answers (admin API, CLI and console alike). */
export interface InvitationView {
  id: string;
  url: string;
  email: string;
  role: MemberRole;
  expires_at: string;
  /** The link sets a new password for the organization's member of this address (not a link to join). */
  password_reset: boolean;
}

/** What the invitation link shows before it is accepted. */
export interface InvitationPreview {
  email: string;
  role: MemberRole;
  organization_name: string;
  expires_at: string;
  /** The address is already this organization's member: the link sets a new password for that account. */
  password_reset: boolean;
}

const PURPOSE = 'console-invitation';
const invalidLink = () =>
  new ApiError(
    404,
    'not_found',
    'not_found',
    'This invitation link is not valid. Check that you copied all of it, or ask for a new invitation.',
  );

/**
 * Invitations (docs/console.md, "Invitations"): signed links (an HMAC of the id and expiry with
 * the service's signing secret), single use, expiring after CONSOLE_INVITATION_TTL_SECONDS.
 */
@Injectable()
export class Invitations {
  private readonly logger = new Logger(Invitations.name);

  constructor(
    @Inject(ACCOUNT_STORE) private readonly accounts: AccountStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(URL_SIGNER) private readonly signer: UrlSigner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: ConsoleSessions,
    private readonly audit: AuditLog,
    private readonly throttle: SignInThrottle,
  ) {}

  /** Invites someone into an organization: by the operator (`by` null) or an owner. */
  async create(organizationId: string, body: unknown, by: ConsoleCaller | null, requestId: string): Promise<InvitationView> {
    if (!(await this.directory.getOrganization(organizationId))) throw ApiError.notFound('organization');
    const b = objectBodyOrNone<Record<string, unknown>>(body);
    const fields: Record<string, string[]> = {};
    const email = typeof b.email === 'string' ? b.email.trim().toLowerCase() : '';
    if (!email) fields.email = ['The email field is required.'];
    else if (!isEmailAddress(email) || hasHiddenControls(email)) fields.email = ['The email field must be a valid e-mail address.'];
    const role = b.role === undefined ? 'viewer' : b.role;
    if (!MEMBER_ROLES.includes(role as MemberRole)) fields.role = [`The role field must be one of ${MEMBER_ROLES.join(', ')}.`];
    if (Object.keys(fields).length > 0) throw ApiError.validation(fields);
    // The organization's own member, invited again: the link sets a new password for that member's account (the
    // service sends no e-mail, so this is how a forgotten password is mended). Their role stays theirs: roles change on
    // the members page. An owner's password is reset by the operator only: the link goes back to whoever made it, and
    // one owner must not be able to take another's account. Only this organization's members are looked at, so
    // nothing is told about an address elsewhere (such an invitation is refused when accepted, 409 email_taken).
    const member = (await this.accounts.listMembers(organizationId)).find((m) => m.email === email);
    if (member?.role === 'owner' && by !== null) throw ownerResetByOperator(email);
    const now = new Date();
    await this.replacePendingInvitations(organizationId, email, by, requestId, now.toISOString());
    const invitation: Invitation = {
      id: randomUUID(),
      organization_id: organizationId,
      email,
      role: member?.role ?? (role as MemberRole),
      invited_by: by?.member.id ?? null,
      created_at: now.toISOString(),
      // Whole seconds: the signature covers the expiry as the URL signer counts it.
      expires_at: new Date(Math.ceil(now.getTime() / 1000 + this.config.console.invitationTtlSeconds) * 1000).toISOString(),
      accepted_at: null,
      revoked_at: null,
      resets_member_id: member?.id ?? null,
    };
    await this.accounts.createInvitation(invitation);
    await this.audit.record(
      organizationId,
      actorOf(by),
      'MemberInvited',
      { invitation_id: invitation.id, email, role: invitation.role, ...(member ? { password_reset: true } : {}) },
      requestId,
    );
    return this.view(invitation);
  }

  /**
   * Inviting an address again sends a new link and withdraws the ones it had (each recorded), so that
   * one address has one live link, with the role last chosen: there is nothing else to "resend".
   */
  private async replacePendingInvitations(organizationId: string, email: string, by: ConsoleCaller | null, requestId: string, at: string) {
    for (const old of await this.accounts.listPendingInvitations(organizationId)) {
      // An expired link is dead already: withdrawing it would only add a line to the audit log.
      if (old.email !== email || old.expires_at <= at || !(await this.accounts.revokeInvitation(organizationId, old.id, at))) continue;
      const details = { invitation_id: old.id, email, role: old.role };
      await this.audit.record(organizationId, actorOf(by), 'InvitationRevoked', details, requestId);
    }
  }

  view(invitation: Invitation): InvitationView {
    const signature = this.signer.sign(PURPOSE, invitation.id, expirySeconds(invitation));
    return {
      id: invitation.id,
      url: `${this.config.publicBaseUrl}/console/invitations/${invitation.id}?signature=${signature}`,
      email: invitation.email,
      role: invitation.role,
      expires_at: invitation.expires_at,
      password_reset: !!invitation.resets_member_id,
    };
  }

  /** What the link shows: 404 for a bad link, 410 once expired, 409 once used or withdrawn. */
  async preview(id: string, signature: unknown): Promise<InvitationPreview> {
    const invitation = await this.usable(id, signature);
    const org = await this.directory.getOrganization(invitation.organization_id);
    if (!org) throw invalidLink();
    return {
      email: invitation.email,
      role: invitation.role,
      organization_name: org.name,
      expires_at: invitation.expires_at,
      password_reset: !!invitation.resets_member_id,
    };
  }

  /** Uses the invitation (once): the person's account, signed in; for a member of the organization, their new password. */
  async accept(id: string, signature: unknown, body: unknown, requestId: string): Promise<{ token: string; caller: ConsoleCaller }> {
    const invitation = await this.usable(id, signature);
    if (invitation.resets_member_id) return this.resetPassword(invitation, invitation.resets_member_id, body, requestId);
    const b = objectBodyOrNone<Record<string, unknown>>(body);
    const fields: Record<string, string[]> = {};
    const displayName = typeof b.display_name === 'string' ? b.display_name.trim() : '';
    if (!displayName) fields.display_name = ['Enter the name your colleagues will see.'];
    // Characters as a person counts them (an emoji is one), as the admin API counts names: not UTF-16 units.
    else if (!isLength(displayName, { max: 100 })) fields.display_name = ['The name must be at most 100 characters long.'];
    else if (hasHiddenControls(displayName)) fields.display_name = [`The name ${HIDDEN_CONTROLS_PROBLEM}.`];
    const problem = passwordProblem(b.password);
    if (problem) fields.password = [problem];
    if (Object.keys(fields).length > 0) throw ApiError.validation(fields);
    if (await this.accounts.findMemberByEmail(invitation.email)) throw emailTaken();
    const passwordHash = await hashPassword(b.password as string);
    const now = new Date().toISOString();
    await this.claim(invitation, now);
    const member = {
      id: randomUUID(),
      organization_id: invitation.organization_id,
      email: invitation.email,
      display_name: displayName,
      role: invitation.role,
      password_hash: passwordHash,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.accounts.createMember(member))) throw emailTaken();
    await this.audit.record(
      invitation.organization_id,
      { member_id: member.id, email: member.email },
      'InvitationAccepted',
      { invitation_id: invitation.id, member_id: member.id, email: member.email, role: member.role },
      requestId,
    );
    return this.sessions.start(member);
  }

  /**
   * A reset link: a new password for the member it was made for (name and role kept), every session of theirs ended,
   * their failed sign-ins forgotten, and this session started. The member must still be there with the link's
   * e-mail: a member removed since (or whose address changed) gets nothing, and a reset link never makes an account.
   */
  private async resetPassword(invitation: Invitation, memberId: string, body: unknown, requestId: string) {
    const b = objectBodyOrNone<Record<string, unknown>>(body);
    const problem = passwordProblem(b.password);
    if (problem) throw ApiError.validation({ password: [problem] });
    const passwordHash = await hashPassword(b.password as string);
    const now = new Date().toISOString();
    await this.claim(invitation, now);
    if (!(await this.accounts.setPasswordHash(invitation.organization_id, memberId, passwordHash, now))) throw used();
    await this.accounts.deleteMemberSessions(memberId, null);
    await this.throttle.forget(invitation.email);
    // Read again: the session shows the member as they are now (a role changed since the link was made).
    const member = await this.accounts.getMember(invitation.organization_id, memberId);
    if (!member) throw used();
    await this.audit.record(
      invitation.organization_id,
      { member_id: member.id, email: member.email },
      'MemberPasswordReset',
      { invitation_id: invitation.id, member_id: member.id, email: member.email, invited_by: invitation.invited_by },
      requestId,
    );
    return this.sessions.start(member);
  }

  /**
   * Withdraws the pending links that no longer stand (lapseOf) after a member's role changed or they were
   * removed: a removed or demoted owner's links, a reset link made by an owner for a member now an owner. Each is an
   * `InvitationRevoked` by whoever made the change, so the pending list shows only links that work, and making the
   * maker an owner again does not bring them back.
   */
  async withdrawLapsed(organizationId: string, by: ConsoleCaller, requestId: string): Promise<void> {
    // After the change it follows has been made and recorded: a failure here is logged, not answered as the change's
    // (the links it leaves are refused when used anyway).
    try {
      const at = new Date().toISOString();
      for (const invitation of await this.accounts.listPendingInvitations(organizationId)) {
        if (invitation.expires_at <= at || !(await this.lapseOf(invitation))) continue;
        if (!(await this.accounts.revokeInvitation(organizationId, invitation.id, at))) continue;
        const details = { invitation_id: invitation.id, email: invitation.email, role: invitation.role };
        await this.audit.record(organizationId, actorOf(by), 'InvitationRevoked', details, requestId);
      }
    } catch (err) {
      this.logger.error(`Withdrawing the lapsed links of organization ${organizationId} failed: ${String(err)}`);
    }
  }

  /**
   * What the link was made on must still hold when it is opened and when it is used, as the preview and the use both
   * ask (a link lives for days, and the people it names change meanwhile):
   * - a link an owner made goes back to that owner, so it stands only while they are still an owner here (removed or
   *   made an admin, their links are as withdrawn: an owner removed must not come back in through a link of theirs);
   * - a reset link works while its member is here with its address, and, made by an owner, only while that member is
   *   not an owner (one owner must not take another's account: an admin made an owner after the link was made).
   * The answer is why the link no longer stands, or null while it does.
   */
  private async lapseOf(invitation: Invitation): Promise<ApiError | null> {
    const org = invitation.organization_id;
    const maker = invitation.invited_by ?? null; // null: the operator
    if (maker !== null && (await this.accounts.getMember(org, maker))?.role !== 'owner') return used();
    if (!invitation.resets_member_id) return null;
    const member = await this.accounts.getMember(org, invitation.resets_member_id);
    if (member?.email !== invitation.email) return used();
    return member.role === 'owner' && maker !== null ? ownerResetByOperator(member.email) : null;
  }

  /** Marks the invitation used, or says why it cannot be: taken meanwhile, or its time ran out while the password was hashed. */
  private async claim(invitation: Invitation, now: string): Promise<void> {
    if (await this.accounts.acceptInvitation(invitation.id, now)) return;
    const current = await this.accounts.getInvitation(invitation.id);
    throw current && !current.accepted_at && !current.revoked_at ? expired() : used();
  }

  private async usable(id: string, signature: unknown): Promise<Invitation> {
    const invitation = await this.accounts.getInvitation(id);
    if (!invitation || typeof signature !== 'string') throw invalidLink();
    const check = this.signer.check(PURPOSE, invitation.id, expirySeconds(invitation), signature);
    if (check === 'invalid') throw invalidLink();
    if (invitation.accepted_at || invitation.revoked_at) throw used();
    if (check === 'expired') throw expired();
    const lapsed = await this.lapseOf(invitation);
    if (lapsed) throw lapsed;
    return invitation;
  }
}

const expirySeconds = (invitation: Invitation): number => Math.floor(Date.parse(invitation.expires_at) / 1000);
const expired = () =>
  new ApiError(
    410,
    'invitation_expired',
    'gone',
    'This invitation has expired. Ask an owner of your organization to invite you again (owners: ask your service operator).',
  );
const ownerResetByOperator = (email: string) =>
  ApiError.conflict(
    'owner_reset_by_operator',
    `${email} is an owner of this organization: an owner's password is reset by the service's operator (a new invitation through the admin API or CLI).`,
  );
const used = () =>
  ApiError.conflict(
    'invitation_used',
    'This invitation was already used or withdrawn. Sign in, or ask an owner of your organization for a new invitation (owners: ask your service operator).',
  );
const emailTaken = () =>
  ApiError.conflict(
    'email_taken',
    'This e-mail address already has an account. Sign in with it, or ask to be invited with another address.',
  );

export const actorOf = (caller: ConsoleCaller | null): AuditActor =>
  caller ? { member_id: caller.member.id, email: caller.member.email } : { operator: true };
