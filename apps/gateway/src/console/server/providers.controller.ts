import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { DIRECTORY, type Directory, type ProviderRecord } from '@app/directory';
import { DeleteProvider, PutProvider } from '../../admin/commands';
import { presentProvider } from '../../catalog/catalog.presenters';
import { ApiError } from '../../http/api-error';
import { jsonShape } from '../../http/json-shape-limits';
import { paginate } from '../../http/pagination';
import { ProviderConnectionCheck } from '../provider-test/provider-check';
import { AuditLog } from '../../audit/audit-log';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, ConsoleRoles } from './console-auth.guard';
import { consolePage } from './console-paging';
import { actorOf } from './invitations';

/** A provider as the console shows it: the public shape, its base URL, and whether a key is stored (never the key). */
const consoleProvider = (p: ProviderRecord) => ({ ...presentProvider(p), base_url: p.base_url, has_api_key: p.api_key !== null });

/** AI providers: the admin API's rules; the vendor key is write-only. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/providers')
export class ConsoleProvidersController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly audit: AuditLog,
    private readonly connection: ProviderConnectionCheck,
  ) {}

  @Get()
  async list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const page = consolePage(query);
    const { items, total } = await this.directory.listProviders(callerOf(req).organization.id, page.offset, page.perPage);
    return paginate(items.map(consoleProvider), total, page, '/console/api/providers');
  }

  @Get(':id')
  async get(@Req() req: ConsoleRequest, @Param('id') id: string) {
    return { data: consoleProvider(await this.find(callerOf(req).organization.id, id)) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoles(['owner', 'admin'])
  create(@Req() req: ConsoleRequest, @Body(jsonShape) body: unknown) {
    return this.save(req, body);
  }

  @Put(':id')
  @ConsoleRoles(['owner', 'admin'])
  update(@Req() req: ConsoleRequest, @Param('id') id: string, @Body(jsonShape) body: unknown) {
    return this.save(req, body, id);
  }

  /** One small call to the vendor with the stored key: does it work? */
  @Post(':id/test')
  @HttpCode(200)
  @ConsoleRoles(['owner', 'admin'])
  async test(@Req() req: ConsoleRequest, @Param('id') id: string) {
    return { data: await this.connection.check(await this.find(callerOf(req).organization.id, id)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ConsoleRoles(['owner', 'admin'])
  async remove(@Req() req: ConsoleRequest, @Param('id') id: string): Promise<void> {
    const caller = callerOf(req);
    // Its name says which it was in the audit log (read first: the organization's own providers only).
    const provider = await this.directory.getProvider(caller.organization.id, id);
    await this.commandBus.execute(new DeleteProvider(caller.organization.id, id));
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'ProviderDeleted',
      { provider_id: id, ...(provider ? { name: provider.name } : {}) },
      String(req.id),
    );
  }

  private async save(req: ConsoleRequest, body: unknown, id?: string) {
    const caller = callerOf(req);
    const saved = await this.commandBus.execute(new PutProvider(caller.organization.id, body, id));
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'ProviderSaved',
      { provider_id: saved.data.id, name: saved.data.name, created: id === undefined },
      String(req.id),
    );
    return { data: consoleProvider(await this.find(caller.organization.id, saved.data.id)) };
  }

  async find(organizationId: string, id: string): Promise<ProviderRecord> {
    const provider = await this.directory.getProvider(organizationId, id);
    if (!provider) throw ApiError.notFound('provider');
    return provider;
  }
}
