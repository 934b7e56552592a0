import { Body, Controller, Delete, Get, HttpCode, Inject, Logger, Param, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiCallbacks,
  ApiExtraModels,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { OrganizationEventMap, OrganizationEventType } from '@app/contracts';
import { DIRECTORY, type Directory } from '@app/directory';
import { AuditLog } from '../audit/audit-log';
import { ProviderResourceDto, SchemaResourceDto } from '../catalog/catalog.dto';
import { ValidateAnswerDto, ValidateRequestDto } from '../review/validation-hook/validation-hook.dto';
import { AdminGuard } from '../http/auth.guard';
import { jsonShape, schemaJsonShape } from '../http/json-shape-limits';
import { ApiErrorResponses } from '../openapi/error-responses';
import { ADMIN_TOKEN_SCHEME } from '../openapi/security-schemes';
import {
  CreateOrganizationRequestDto,
  ApiKeyListDto,
  CreatedOrganizationDto,
  IssuedApiKeyDto,
  IssueApiKeyRequestDto,
  ProviderRequestDto,
  QuotaDto,
  QuotaRequestDto,
  SchemaRequestDto,
  WebhookSecretDto,
  WebhookSettingsDto,
  WebhookSettingsRequestDto,
} from './admin.dto';
import {
  apiKeyPrefix,
  CreateOrganization,
  DeleteProvider,
  DeleteSchema,
  IssueApiKey,
  ListApiKeys,
  PutProvider,
  PutSchema,
  RevokeApiKey,
  RotateWebhookSecret,
  SetDefaultWebhook,
  SetReviewQuota,
} from './commands';

const orgParam = ApiParam({ name: 'org', description: 'Organization id (UUID).' });
const idParam = (what: string) => ApiParam({ name: 'id', description: `${what} id (UUID).` });

/**
 * A 201 of a schema or provider names it in `Location` (RFC 9110 §15.3.2: without it a 201 names its target, the
 * organization's collection, as the resource created). The admin API shows neither, so the URL is the public API's,
 * where the organization's keys read it; an organization, an API key and an invitation have no such GET, and no Location.
 */
const createdAt = (type: typeof SchemaResourceDto | typeof ProviderResourceDto, what: string, path: string) =>
  ApiCreatedResponse({
    type,
    headers: {
      Location: {
        description: `The URL of the ${what} created (\`GET ${path}\` of the public API, with one of the organization's API keys), as RFC 9110 names a 201's new resource.`,
        required: true,
        schema: { type: 'string', format: 'uri' },
      },
    },
  });

/** A schema's validation_url is called back by the review (docs/validation-hook.md); its answer is a ValidateAnswer. */
const REVIEW_VALIDATE_CALLBACK = {
  name: 'reviewValidate',
  callbackUrl: '{$request.body#/validation_url}',
  method: 'post',
  requestBody: { type: ValidateRequestDto },
  expectedResponse: {
    status: 200,
    description: 'Any 2xx with a JSON ValidateAnswer: `{"results": [{"row", "field", "message", "corrected_value"?}]}`.',
  },
};

/**
 * The admin API under /admin/v1 (docs/api.md, "Admin API"). It has its own OpenAPI document,
 * /admin/openapi.json (openapi/admin-document.ts), and is not part of the public one. Each
 * call is a command (or query) on @nestjs/cqrs's buses; its handler is in ./commands. Each
 * change is written to the organization's audit log as the operator's, so that its owners see
 * what was done to their account outside the console.
 */
@ApiTags('admin')
@ApiExtraModels(ValidateRequestDto, ValidateAnswerDto)
@ApiBearerAuth(ADMIN_TOKEN_SCHEME)
@UseGuards(AdminGuard)
@Controller('admin/v1/organizations')
export class AdminController {
  private readonly logger = new Logger(AdminController.name);

  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly audit: AuditLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Names the created resource by its public API URL (`/v1/schemas/{id}`, `/v1/providers/{id}`). */
  private located(res: FastifyReply, collection: 'schemas' | 'providers', id: string): void {
    void res.header('Location', `${this.config.publicBaseUrl}/v1/${collection}/${id}`);
  }

  /**
   * An entry of the organization's audit log, by the operator, under the request's id. Written after the change: a
   * failed write is logged, not answered as a failure, since the change is made (a new organization's key and secret,
   * shown only in this answer, would be lost, and a retry would make a second organization).
   */
  private async byOperator<K extends OrganizationEventType>(org: string, req: FastifyRequest, type: K, details: OrganizationEventMap[K]) {
    try {
      await this.audit.record(org, { operator: true }, type, details, String(req.id));
    } catch (err) {
      this.logger.error(`The audit log did not record ${type} for organization ${org}: ${(err as Error).message}`);
    }
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.organizations.create', summary: 'Create an organization and its first API key' })
  @ApiBody({ type: CreateOrganizationRequestDto })
  @ApiCreatedResponse({ type: CreatedOrganizationDto })
  @ApiErrorResponses(422)
  async createOrganization(@Req() req: FastifyRequest, @Body(jsonShape) body: unknown): Promise<CreatedOrganizationDto> {
    const created = await this.commandBus.execute(new CreateOrganization(body));
    await this.byOperator(created.id, req, 'ApiKeyIssued', {
      api_key_id: created.api_key_id,
      prefix: apiKeyPrefix(created.api_key),
      name: null,
    });
    return created;
  }

  @Post(':org/api-keys')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.apiKeys.create', summary: 'Issue another API key' })
  @orgParam
  @ApiBody({ type: IssueApiKeyRequestDto, required: false })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrorResponses(404, 422)
  async issueKey(@Req() req: FastifyRequest, @Param('org') org: string, @Body(jsonShape) body: unknown): Promise<IssuedApiKeyDto> {
    const key = await this.commandBus.execute(new IssueApiKey(org, body));
    await this.byOperator(org, req, 'ApiKeyIssued', { api_key_id: key.id, prefix: key.prefix, name: key.name });
    return key;
  }

  @Get(':org/api-keys')
  @ApiOperation({ operationId: 'admin.apiKeys.index', summary: "List the organization's API keys (ids and prefixes, never secrets)" })
  @orgParam
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrorResponses(404)
  listKeys(@Param('org') org: string): Promise<ApiKeyListDto> {
    return this.queryBus.execute(new ListApiKeys(org));
  }

  @Delete(':org/api-keys/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.apiKeys.revoke', summary: 'Revoke an API key (it stops working at once)' })
  @orgParam
  @idParam('API key')
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiErrorResponses(404)
  async revokeKey(@Req() req: FastifyRequest, @Param('org') org: string, @Param('id') id: string): Promise<void> {
    const key = (await this.directory.listApiKeys(org)).find((k) => k.id === id);
    await this.commandBus.execute(new RevokeApiKey(org, id));
    await this.byOperator(org, req, 'ApiKeyRevoked', { api_key_id: id, prefix: key?.prefix ?? null, name: key?.name ?? null });
  }

  @Put(':org/webhook')
  @ApiOperation({ operationId: 'admin.webhook.update', summary: 'Set or remove the default webhook URL' })
  @orgParam
  @ApiBody({ type: WebhookSettingsRequestDto })
  @ApiOkResponse({ type: WebhookSettingsDto })
  @ApiErrorResponses(404, 422)
  async setWebhook(@Req() req: FastifyRequest, @Param('org') org: string, @Body(jsonShape) body: unknown): Promise<WebhookSettingsDto> {
    const saved = await this.commandBus.execute(new SetDefaultWebhook(org, body));
    await this.byOperator(org, req, 'WebhookUrlChanged', { url: saved.webhook_url });
    return saved;
  }

  @Post(':org/webhook/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ operationId: 'admin.webhook.rotateSecret', summary: 'Replace the webhook secret' })
  @orgParam
  @ApiOkResponse({ type: WebhookSecretDto })
  @ApiErrorResponses(404)
  async rotateSecret(@Req() req: FastifyRequest, @Param('org') org: string): Promise<WebhookSecretDto> {
    const rotated = await this.commandBus.execute(new RotateWebhookSecret(org));
    await this.byOperator(org, req, 'WebhookSecretRotated', {});
    return rotated;
  }

  @Put(':org/quota')
  @ApiOperation({ operationId: 'admin.quota.update', summary: 'Set the review-preparation quota' })
  @orgParam
  @ApiBody({ type: QuotaRequestDto })
  @ApiOkResponse({ type: QuotaDto })
  @ApiErrorResponses(404, 422)
  async setQuota(@Req() req: FastifyRequest, @Param('org') org: string, @Body(jsonShape) body: unknown): Promise<QuotaDto> {
    const quota = await this.commandBus.execute(new SetReviewQuota(org, body));
    await this.byOperator(org, req, 'ReviewQuotaChanged', { review_preparations: quota.review_preparations });
    return quota;
  }

  @Post(':org/schemas')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.schemas.create', summary: 'Create a target schema' })
  @orgParam
  @ApiBody({ type: SchemaRequestDto })
  @ApiCallbacks(REVIEW_VALIDATE_CALLBACK)
  @createdAt(SchemaResourceDto, 'schema', '/v1/schemas/{schema}')
  @ApiErrorResponses(404, 422)
  async createSchema(
    @Req() req: FastifyRequest,
    @Param('org') org: string,
    @Body(schemaJsonShape) body: unknown,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<SchemaResourceDto> {
    const saved = await this.commandBus.execute(new PutSchema(org, body));
    await this.byOperator(org, req, 'SchemaSaved', { schema_id: saved.data.id, name: saved.data.name, created: true });
    this.located(res, 'schemas', saved.data.id);
    return saved;
  }

  @Put(':org/schemas/:id')
  @ApiOperation({ operationId: 'admin.schemas.update', summary: 'Replace a target schema (runs keep the version they were created with)' })
  @orgParam
  @idParam('Schema')
  @ApiBody({ type: SchemaRequestDto })
  @ApiCallbacks(REVIEW_VALIDATE_CALLBACK)
  @ApiOkResponse({ type: SchemaResourceDto })
  @ApiErrorResponses(404, 422)
  async updateSchema(
    @Req() req: FastifyRequest,
    @Param('org') org: string,
    @Param('id') id: string,
    @Body(schemaJsonShape) body: unknown,
  ): Promise<SchemaResourceDto> {
    const saved = await this.commandBus.execute(new PutSchema(org, body, id));
    await this.byOperator(org, req, 'SchemaSaved', { schema_id: saved.data.id, name: saved.data.name, created: false });
    return saved;
  }

  @Delete(':org/schemas/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.schemas.delete', summary: 'Delete a target schema' })
  @orgParam
  @idParam('Schema')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(404)
  async deleteSchema(@Req() req: FastifyRequest, @Param('org') org: string, @Param('id') id: string): Promise<void> {
    const schema = await this.directory.getSchema(org, id);
    await this.commandBus.execute(new DeleteSchema(org, id));
    await this.byOperator(org, req, 'SchemaDeleted', { schema_id: id, ...(schema ? { name: schema.name } : {}) });
  }

  @Post(':org/providers')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.providers.create', summary: 'Register an AI provider' })
  @orgParam
  @ApiBody({ type: ProviderRequestDto })
  @createdAt(ProviderResourceDto, 'provider', '/v1/providers/{provider}')
  @ApiErrorResponses(404, 422)
  async createProvider(
    @Req() req: FastifyRequest,
    @Param('org') org: string,
    @Body(jsonShape) body: unknown,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ProviderResourceDto> {
    const saved = await this.commandBus.execute(new PutProvider(org, body));
    await this.byOperator(org, req, 'ProviderSaved', { provider_id: saved.data.id, name: saved.data.name, created: true });
    this.located(res, 'providers', saved.data.id);
    return saved;
  }

  @Put(':org/providers/:id')
  @ApiOperation({ operationId: 'admin.providers.update', summary: 'Replace an AI provider' })
  @orgParam
  @idParam('Provider')
  @ApiBody({ type: ProviderRequestDto })
  @ApiOkResponse({ type: ProviderResourceDto })
  @ApiErrorResponses(404, 422)
  async updateProvider(
    @Req() req: FastifyRequest,
    @Param('org') org: string,
    @Param('id') id: string,
    @Body(jsonShape) body: unknown,
  ): Promise<ProviderResourceDto> {
    const saved = await this.commandBus.execute(new PutProvider(org, body, id));
    await this.byOperator(org, req, 'ProviderSaved', { provider_id: saved.data.id, name: saved.data.name, created: false });
    return saved;
  }

  @Delete(':org/providers/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.providers.delete', summary: 'Delete an AI provider' })
  @orgParam
  @idParam('Provider')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(404)
  async deleteProvider(@Req() req: FastifyRequest, @Param('org') org: string, @Param('id') id: string): Promise<void> {
    const provider = await this.directory.getProvider(org, id);
    await this.commandBus.execute(new DeleteProvider(org, id));
    await this.byOperator(org, req, 'ProviderDeleted', { provider_id: id, ...(provider ? { name: provider.name } : {}) });
  }
}
