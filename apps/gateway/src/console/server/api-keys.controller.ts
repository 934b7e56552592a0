import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { DIRECTORY, type Directory } from '@app/directory';
import { IssueApiKey, RevokeApiKey } from '../../admin/commands';
import { jsonShape } from '../../http/json-shape-limits';
import { AuditLog } from '../../audit/audit-log';
import { callerOf, ConsoleAuthGuard, type ConsoleRequest, ConsoleRoles } from './console-auth.guard';
import { actorOf } from './invitations';

/** The organization's API keys: issue (shown once, with an optional name), list by prefix and name, revoke. */
@ApiExcludeController()
@UseGuards(ConsoleAuthGuard)
@Controller('console/api/api-keys')
export class ConsoleApiKeysController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  async list(@Req() req: ConsoleRequest) {
    const keys = await this.directory.listApiKeys(callerOf(req).organization.id);
    // Newest first; a prefix is 48 of a key's 256 bits: it names the key, it does not open anything.
    return {
      data: keys
        .slice()
        .reverse()
        .map((k) => ({
          id: k.id,
          prefix: k.prefix,
          name: k.name ?? null,
          created_at: k.created_at,
          last_used_at: (k as { last_used_at?: string | null }).last_used_at ?? null,
          revoked_at: k.revoked_at,
        })),
    };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoles(['owner', 'admin'])
  async issue(@Req() req: ConsoleRequest, @Body(jsonShape) body: unknown) {
    const caller = callerOf(req);
    const key = await this.commandBus.execute(new IssueApiKey(caller.organization.id, body));
    const { id, prefix, name } = key;
    await this.audit.record(caller.organization.id, actorOf(caller), 'ApiKeyIssued', { api_key_id: id, prefix, name }, String(req.id));
    return { data: { id, api_key: key.api_key, prefix, name } };
  }

  @Delete(':id')
  @HttpCode(204)
  @ConsoleRoles(['owner', 'admin'])
  async revoke(@Req() req: ConsoleRequest, @Param('id') id: string): Promise<void> {
    const caller = callerOf(req);
    // Its prefix and name name it in the audit log (read first: the organization's own keys only).
    const key = (await this.directory.listApiKeys(caller.organization.id)).find((k) => k.id === id);
    await this.commandBus.execute(new RevokeApiKey(caller.organization.id, id));
    const named = { api_key_id: id, prefix: key?.prefix ?? null, name: key?.name ?? null };
    await this.audit.record(caller.organization.id, actorOf(caller), 'ApiKeyRevoked', named, String(req.id));
  }
}
