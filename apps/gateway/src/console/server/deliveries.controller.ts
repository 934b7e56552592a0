import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DeliveriesService } from '../../transformations/deliveries.service';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest } from './console-auth.guard';

/** The organization's webhook delivery log, newest first; `event` and `outcome` filters. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/deliveries')
export class ConsoleDeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get()
  list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    return this.deliveries.listOrganizationDeliveries(callerOf(req).organization.id, query, '/console/api/deliveries');
  }
}
