import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DeliveriesService } from '../../transformations/deliveries.service';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest } from './console-auth.guard';
import { attemptForRole } from './delivery-for-role';

/** The organization's webhook delivery log, newest first; `event` and `outcome` filters. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/deliveries')
export class ConsoleDeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  /** A viewer sees the signatures of links a receiver echoed hidden (delivery-for-role.ts). */
  @Get()
  async list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const caller = callerOf(req);
    const page = await this.deliveries.listOrganizationDeliveries(caller.organization.id, query, '/console/api/deliveries');
    return { ...page, data: page.data.map((attempt) => attemptForRole(attempt, caller.member.role)) };
  }
}
