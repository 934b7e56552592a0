import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { paginate } from '../../http/pagination';
import { AuditLog } from '../../audit/audit-log';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest } from './console-auth.guard';
import { consolePage } from './console-paging';
import { withUrlForRole } from './url-for-role';

/** The organization's audit log, newest first. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/audit')
export class ConsoleAuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  async list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const page = consolePage(query);
    const caller = callerOf(req);
    const { items, total } = await this.audit.list(caller.organization.id, page.offset, page.perPage);
    // The webhook URLs of WebhookUrlChanged and WebhookTestSent: without their credentials for a viewer.
    return paginate(
      items.map((e) => withUrlForRole(e, caller.member.role)),
      total,
      page,
      '/console/api/audit',
    );
  }
}
