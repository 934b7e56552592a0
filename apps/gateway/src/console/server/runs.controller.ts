import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { runStreamId } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { ApiError } from '../../http/api-error';
import { DeliveriesService } from '../../transformations/deliveries.service';
import { parseRunListQuery } from '../../transformations/run-list';
import { TransformationsService } from '../../transformations/transformations.service';
import { AuditLog } from '../../audit/audit-log';
import { actorOf } from './invitations';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, ConsoleRoles } from './console-auth.guard';
import { attemptForRole } from './delivery-for-role';
import { withUrlForRole } from './url-for-role';
import { runForRole } from './run-for-role';
import { runTimeline } from './run-timeline';
import { UUID_RE } from '../../http/ids-in-any-case';

const runNotFound = () => ApiError.notFound('transformation run');

/** The organization's runs as the public API shows them, with each run's history. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/runs')
export class ConsoleRunsController {
  constructor(
    private readonly runs: TransformationsService,
    private readonly deliveries: DeliveriesService,
    private readonly audit: AuditLog,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  /**
   * The public run list with two more filters (input source, text) and, beside each run resource, when it was created and
   * its file. A viewer's runs have no review link (run-for-role.ts).
   */
  @Get()
  async list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const caller = callerOf(req);
    const page = await this.runs.list(caller.organization.id, parseRunListQuery(query, true), '/console/api/runs', true);
    return { ...page, data: page.data.map((run) => runForRole(run, caller.member.role)) };
  }

  @Get(':id')
  async show(@Req() req: ConsoleRequest, @Param('id') id: string) {
    if (!UUID_RE.test(id)) throw runNotFound();
    const caller = callerOf(req);
    const run = await this.runs.show({ organizationId: caller.organization.id, apiKeyId: 'console' }, id.toLowerCase(), true);
    return { data: runForRole(run, caller.member.role) };
  }

  @Get(':id/timeline')
  async timeline(@Req() req: ConsoleRequest, @Param('id') id: string) {
    if (!UUID_RE.test(id)) throw runNotFound();
    const events = await this.store.readStream(runStreamId(id.toLowerCase()));
    const caller = callerOf(req);
    if (events.length === 0 || events[0].metadata.organization_id !== caller.organization.id) throw runNotFound();
    // A webhook's URL in the history, as the delivery log shows it: without its credentials for a viewer.
    return { data: runTimeline(events).map((e) => withUrlForRole(e, caller.member.role)) };
  }

  /**
   * The public list of the run's attempts, each with `delivery_next_attempt_at`: when its delivery's
   * next attempt is planned (a retry, or a re-send not yet made), null once the delivery has settled.
   * The page offers "Send again" only for a settled delivery: a pending one would be refused (409).
   */
  @Get(':id/deliveries')
  async deliveriesOf(@Req() req: ConsoleRequest, @Param('id') id: string, @Query() query: Record<string, unknown>) {
    if (!UUID_RE.test(id)) throw runNotFound();
    const runId = id.toLowerCase();
    const caller = callerOf(req);
    const page = await this.deliveries.listRunDeliveriesWithPlan(
      caller.organization.id,
      runId,
      query,
      `/console/api/runs/${runId}/deliveries`,
    );
    return { ...page, data: page.data.map((attempt) => attemptForRole(attempt, caller.member.role)) };
  }

  /** A new attempt of a delivered or failed webhook: the same event, delivery id and X-Service-Id (docs/webhooks.md). */
  @Post(':id/deliveries/:deliveryId/resend')
  @HttpCode(202)
  @ConsoleRoles(['owner', 'admin'])
  async resend(@Req() req: ConsoleRequest, @Param('id') id: string, @Param('deliveryId') deliveryId: string) {
    if (!UUID_RE.test(id)) throw runNotFound();
    const caller = callerOf(req);
    const runId = id.toLowerCase();
    const accepted = await this.deliveries.resendDelivery(caller.organization.id, runId, deliveryId, `member:${caller.member.id}`);
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'DeliveryResent',
      { run_id: runId, delivery_id: deliveryId, event: accepted.event },
      String(req.id),
    );
    return { data: accepted };
  }
}
