import { Controller, Get, Inject, Param, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { runStreamId } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { ApiError } from '../../http/api-error';
import { TransformationsService } from '../../transformations/transformations.service';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest } from './console-auth.guard';
import { runTimeline } from './run-timeline';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const runNotFound = () => ApiError.notFound('transformation run');

/** The organization's runs as the public API shows them, with each run's history. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/runs')
export class ConsoleRunsController {
  constructor(
    private readonly runs: TransformationsService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get(':id')
  async show(@Req() req: ConsoleRequest, @Param('id') id: string) {
    if (!UUID_RE.test(id)) throw runNotFound();
    return { data: await this.runs.show({ organizationId: callerOf(req).organization.id, apiKeyId: 'console' }, id.toLowerCase()) };
  }

  @Get(':id/timeline')
  async timeline(@Req() req: ConsoleRequest, @Param('id') id: string) {
    if (!UUID_RE.test(id)) throw runNotFound();
    const events = await this.store.readStream(runStreamId(id.toLowerCase()));
    if (events.length === 0 || events[0].metadata.organization_id !== callerOf(req).organization.id) throw runNotFound();
    return { data: runTimeline(events) };
  }
}
