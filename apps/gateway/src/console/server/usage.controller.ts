import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TransformationsService } from '../../transformations/transformations.service';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest } from './console-auth.guard';

/** The quota, runs per day over the last 30 days by outcome, and rows processed. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/usage')
export class ConsoleUsageController {
  constructor(private readonly runs: TransformationsService) {}

  @Get()
  async usage(@Req() req: ConsoleRequest) {
    return { data: await this.runs.usage(callerOf(req).organization.id) };
  }
}
