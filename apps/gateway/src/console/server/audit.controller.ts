import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { paginate } from '../../http/pagination';
import { AuditLog } from '../../audit/audit-log';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest } from './console-auth.guard';
import { consolePage } from './console-paging';

/** The organization's audit log, newest first. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/audit')
export class ConsoleAuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  async list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const page = consolePage(query);
    const { items, total } = await this.audit.list(callerOf(req).organization.id, page.offset, page.perPage);
    return paginate(items, total, page, '/console/api/audit');
  }
}
