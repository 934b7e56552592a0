import { Body, Controller, Get, HttpCode, Inject, Post, Put, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { DIRECTORY, type Directory } from '@app/directory';
import { RotateWebhookSecret, SetDefaultWebhook } from '../../admin/commands';
import { DeliveriesService } from '../../transformations/deliveries.service';
import { ApiError } from '../../http/api-error';
import { jsonShape } from '../../http/json-shape-limits';
import { objectBodyOrNone } from '../../http/validate-body';
import { AuditLog } from '../../audit/audit-log';
import { urlForRole } from './url-for-role';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, ConsoleRoles } from './console-auth.guard';
import { actorOf } from './invitations';

/** Webhook settings: the default URL, and the secret (revealed or rotated by owners and admins, each recorded). */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/webhook')
export class ConsoleWebhookController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly audit: AuditLog,
    private readonly deliveries: DeliveriesService,
  ) {}

  @Get()
  async settings(@Req() req: ConsoleRequest) {
    const caller = callerOf(req);
    const org = await this.directory.getOrganization(caller.organization.id);
    if (!org) throw ApiError.notFound('organization');
    return { data: { url: org.webhook_url === null ? null : urlForRole(org.webhook_url, caller.member.role) } };
  }

  @Put()
  @ConsoleRoles(['owner', 'admin'])
  async setUrl(@Req() req: ConsoleRequest, @Body(jsonShape) body: unknown) {
    const caller = callerOf(req);
    const saved = await this.commandBus.execute(new SetDefaultWebhook(caller.organization.id, body));
    await this.audit.record(caller.organization.id, actorOf(caller), 'WebhookUrlChanged', { url: saved.webhook_url }, String(req.id));
    return { data: { url: saved.webhook_url } };
  }

  /** A POST, not a GET: showing the secret is recorded in the audit log, and a GET could be replayed from another site's page. */
  @Post('secret/reveal')
  @HttpCode(200)
  @ConsoleRoles(['owner', 'admin'])
  async reveal(@Req() req: ConsoleRequest) {
    const caller = callerOf(req);
    const org = await this.directory.getOrganization(caller.organization.id);
    if (!org) throw ApiError.notFound('organization');
    await this.audit.record(caller.organization.id, actorOf(caller), 'WebhookSecretRevealed', {}, String(req.id));
    return { data: { secret: org.webhook_secret } };
  }

  @Post('secret/rotate')
  @HttpCode(200)
  @ConsoleRoles(['owner', 'admin'])
  async rotate(@Req() req: ConsoleRequest) {
    const caller = callerOf(req);
    const rotated = await this.commandBus.execute(new RotateWebhookSecret(caller.organization.id));
    await this.audit.record(caller.organization.id, actorOf(caller), 'WebhookSecretRotated', {}, String(req.id));
    return { data: { secret: rotated.webhook_secret } };
  }

  /** One signed test event to the default URL (or the `url` given): nothing is retried or kept but the audit entry. */
  @Post('test')
  @HttpCode(200)
  @ConsoleRoles(['owner', 'admin'])
  async test(@Req() req: ConsoleRequest, @Body(jsonShape) body: unknown) {
    const caller = callerOf(req);
    // No body is the default URL; a body is an object, as on every other route (a list or a number sent no test).
    const { url } = objectBodyOrNone<{ url?: unknown }>(body);
    if (url !== undefined && url !== null && typeof url !== 'string')
      throw ApiError.validation({ url: ['The url field must be a string: the address to send the test event to.'] });
    const result = await this.deliveries.sendTestEvent(caller.organization.id, typeof url === 'string' ? url : null);
    const org = await this.directory.getOrganization(caller.organization.id);
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'WebhookTestSent',
      { url: typeof url === 'string' ? url : (org?.webhook_url ?? ''), delivered: result.delivered },
      String(req.id),
    );
    return { data: result };
  }
}
