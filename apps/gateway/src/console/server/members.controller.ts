import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ACCOUNT_STORE, type AccountStore, type Member, type MemberChange, MEMBER_ROLES, type MemberRole } from '@app/accounts';
import { ApiError } from '../../http/api-error';
import { jsonShape } from '../../http/json-shape-limits';
import { AuditLog } from '../../audit/audit-log';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, ConsoleRoles } from './console-auth.guard';
import { actorOf, Invitations } from './invitations';

const presentMember = (m: Member) => ({ id: m.id, email: m.email, display_name: m.display_name, role: m.role, created_at: m.created_at });

/** The role the member held just before a change that was done; a refused change is the caller's error. */
const previousRoleOf = (change: MemberChange): MemberRole => {
  if (change.outcome === 'done') return change.previous_role;
  if (change.outcome === 'not_found') throw ApiError.notFound('member');
  throw ApiError.conflict('last_owner', 'An organization keeps at least one owner. Make another member an owner first.');
};

/** Members and invitations: every member sees who is in; only owners change it. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api')
export class ConsoleMembersController {
  constructor(
    @Inject(ACCOUNT_STORE) private readonly accounts: AccountStore,
    private readonly invitations: Invitations,
    private readonly audit: AuditLog,
  ) {}

  @Get('members')
  async members(@Req() req: ConsoleRequest) {
    return { data: (await this.accounts.listMembers(callerOf(req).organization.id)).map(presentMember) };
  }

  @Patch('members/:id')
  @ConsoleRoles(['owner'])
  async changeRole(@Req() req: ConsoleRequest, @Param('id') id: string, @Body(jsonShape) body: unknown) {
    const caller = callerOf(req);
    const role = (body as { role?: unknown } | null)?.role;
    if (!MEMBER_ROLES.includes(role as MemberRole))
      throw ApiError.validation({ role: [`The role field must be one of ${MEMBER_ROLES.join(', ')}.`] });
    const { email } = await this.memberOf(caller.organization.id, id);
    // The "from" role comes from the change's own transaction: a read before it could be another owner's change ago.
    const previousRole = previousRoleOf(
      await this.accounts.changeRole(caller.organization.id, id, role as MemberRole, new Date().toISOString()),
    );
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'MemberRoleChanged',
      { member_id: id, email, previous_role: previousRole, role: role as string },
      String(req.id),
    );
    await this.invitations.withdrawLapsed(caller.organization.id, caller, String(req.id));
    // Removed by another owner since the change: 404, as for any member that is gone.
    return { data: presentMember(await this.memberOf(caller.organization.id, id)) };
  }

  @Delete('members/:id')
  @HttpCode(204)
  @ConsoleRoles(['owner'])
  async remove(@Req() req: ConsoleRequest, @Param('id') id: string): Promise<void> {
    const caller = callerOf(req);
    const { email } = await this.memberOf(caller.organization.id, id);
    const role = previousRoleOf(await this.accounts.removeMember(caller.organization.id, id));
    await this.audit.record(caller.organization.id, actorOf(caller), 'MemberRemoved', { member_id: id, email, role }, String(req.id));
    await this.invitations.withdrawLapsed(caller.organization.id, caller, String(req.id));
  }

  @Get('invitations')
  @ConsoleRoles(['owner'])
  async pending(@Req() req: ConsoleRequest) {
    const invitations = await this.accounts.listPendingInvitations(callerOf(req).organization.id);
    // The links are shown again (an owner may need to send one again); they are bearer secrets only owners see.
    return { data: invitations.map((i) => this.invitations.view(i)) };
  }

  @Post('invitations')
  @HttpCode(201)
  @ConsoleRoles(['owner'])
  async invite(@Req() req: ConsoleRequest, @Body(jsonShape) body: unknown) {
    const caller = callerOf(req);
    return { data: await this.invitations.create(caller.organization.id, body, caller, String(req.id)) };
  }

  @Delete('invitations/:id')
  @HttpCode(204)
  @ConsoleRoles(['owner'])
  async withdraw(@Req() req: ConsoleRequest, @Param('id') id: string): Promise<void> {
    const caller = callerOf(req);
    const invitation = await this.accounts.getInvitation(id);
    // Another organization's invitation is not found, like an unknown one.
    if (invitation?.organization_id !== caller.organization.id) throw ApiError.notFound('invitation');
    if (!(await this.accounts.revokeInvitation(caller.organization.id, id, new Date().toISOString())))
      throw ApiError.notFound('invitation');
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'InvitationRevoked',
      { invitation_id: id, email: invitation.email, role: invitation.role },
      String(req.id),
    );
  }

  /**
   * The member as they are before a change, for the audit log to name whom it was about (the
   * organization's own members only: another organization's id is not found, like an unknown one).
   */
  private async memberOf(organizationId: string, id: string): Promise<Member> {
    const member = await this.accounts.getMember(organizationId, id);
    if (!member) throw ApiError.notFound('member');
    return member;
  }
}
