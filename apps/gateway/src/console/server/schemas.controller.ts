import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { DIRECTORY, type Directory } from '@app/directory';
import { DeleteSchema, PutSchema } from '../../admin/commands';
import { presentSchema } from '../../catalog/catalog.presenters';
import { ApiError } from '../../http/api-error';
import { rawBytesExpected } from '../../http/raw-bytes-route';
import { schemaJsonShape } from '../../http/json-shape-limits';
import { paginate } from '../../http/pagination';
import { tableFormatOf } from '@app/tabular';
import { SchemaTrialService } from '../try-file/schema-trial';
import { AuditLog } from '../../audit/audit-log';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, ConsoleRoles } from './console-auth.guard';
import { consolePage } from './console-paging';
import { actorOf } from './invitations';

/** Target schemas: the admin API's rules and messages, on the member's own organization. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/schemas')
export class ConsoleSchemasController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly audit: AuditLog,
    private readonly trial: SchemaTrialService,
  ) {}

  @Get()
  async list(@Req() req: ConsoleRequest, @Query() query: Record<string, unknown>) {
    const page = consolePage(query);
    const { items, total } = await this.directory.listSchemas(callerOf(req).organization.id, page.offset, page.perPage);
    return paginate(items.map(presentSchema), total, page, '/console/api/schemas');
  }

  @Get(':id')
  async get(@Req() req: ConsoleRequest, @Param('id') id: string) {
    const schema = await this.directory.getSchema(callerOf(req).organization.id, id);
    if (!schema) throw ApiError.notFound('schema');
    return { data: presentSchema(schema) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoles(['owner', 'admin'])
  async create(@Req() req: ConsoleRequest, @Body(schemaJsonShape) body: unknown) {
    const caller = callerOf(req);
    const saved = await this.commandBus.execute(new PutSchema(caller.organization.id, body));
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'SchemaSaved',
      { schema_id: saved.data.id, name: saved.data.name, created: true },
      String(req.id),
    );
    return saved;
  }

  @Put(':id')
  @ConsoleRoles(['owner', 'admin'])
  async update(@Req() req: ConsoleRequest, @Param('id') id: string, @Body(schemaJsonShape) body: unknown) {
    const caller = callerOf(req);
    const saved = await this.commandBus.execute(new PutSchema(caller.organization.id, body, id));
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'SchemaSaved',
      { schema_id: id, name: saved.data.name, created: false },
      String(req.id),
    );
    return saved;
  }

  /** "Try it": the file's bytes (application/octet-stream, up to 5 MB); nothing is created or stored. */
  @Post(':id/try')
  @HttpCode(200)
  @ConsoleRoles(['owner', 'admin'])
  async try(@Req() req: ConsoleRequest, @Param('id') id: string, @Query('filename') filename: unknown, @Body() body: unknown) {
    const schema = await this.directory.getSchema(callerOf(req).organization.id, id);
    if (!schema) throw ApiError.notFound('schema');
    if (typeof filename !== 'string' || !tableFormatOf(filename))
      throw ApiError.validation({ filename: ['The filename must end in .csv, .tsv, .txt or .xlsx.'] });
    if (!Buffer.isBuffer(body)) throw rawBytesExpected();
    return { data: await this.trial.try(schema, body, filename) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ConsoleRoles(['owner', 'admin'])
  async remove(@Req() req: ConsoleRequest, @Param('id') id: string): Promise<void> {
    const caller = callerOf(req);
    // Its name says which it was in the audit log (read first: the organization's own schemas only).
    const schema = await this.directory.getSchema(caller.organization.id, id);
    await this.commandBus.execute(new DeleteSchema(caller.organization.id, id));
    await this.audit.record(
      caller.organization.id,
      actorOf(caller),
      'SchemaDeleted',
      { schema_id: id, ...(schema ? { name: schema.name } : {}) },
      String(req.id),
    );
  }
}
