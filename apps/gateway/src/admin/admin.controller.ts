import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
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
 * call is a command (or query) on @nestjs/cqrs's buses; its handler is in ./commands.
 */
@ApiTags('admin')
@ApiExtraModels(ValidateRequestDto, ValidateAnswerDto)
@ApiBearerAuth(ADMIN_TOKEN_SCHEME)
@UseGuards(AdminGuard)
@Controller('admin/v1/organizations')
export class AdminController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.organizations.create', summary: 'Create an organization and its first API key' })
  @ApiBody({ type: CreateOrganizationRequestDto })
  @ApiCreatedResponse({ type: CreatedOrganizationDto })
  @ApiErrorResponses(422)
  createOrganization(@Body(jsonShape) body: unknown): Promise<CreatedOrganizationDto> {
    return this.commandBus.execute(new CreateOrganization(body));
  }

  @Post(':org/api-keys')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.apiKeys.create', summary: 'Issue another API key' })
  @orgParam
  @ApiBody({ type: IssueApiKeyRequestDto, required: false })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrorResponses(404, 422)
  issueKey(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<IssuedApiKeyDto> {
    return this.commandBus.execute(new IssueApiKey(org, body));
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
  async revokeKey(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    await this.commandBus.execute(new RevokeApiKey(org, id));
  }

  @Put(':org/webhook')
  @ApiOperation({ operationId: 'admin.webhook.update', summary: 'Set or remove the default webhook URL' })
  @orgParam
  @ApiBody({ type: WebhookSettingsRequestDto })
  @ApiOkResponse({ type: WebhookSettingsDto })
  @ApiErrorResponses(404, 422)
  setWebhook(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<WebhookSettingsDto> {
    return this.commandBus.execute(new SetDefaultWebhook(org, body));
  }

  @Post(':org/webhook/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ operationId: 'admin.webhook.rotateSecret', summary: 'Replace the webhook secret' })
  @orgParam
  @ApiOkResponse({ type: WebhookSecretDto })
  @ApiErrorResponses(404)
  rotateSecret(@Param('org') org: string): Promise<WebhookSecretDto> {
    return this.commandBus.execute(new RotateWebhookSecret(org));
  }

  @Put(':org/quota')
  @ApiOperation({ operationId: 'admin.quota.update', summary: 'Set the review-preparation quota' })
  @orgParam
  @ApiBody({ type: QuotaRequestDto })
  @ApiOkResponse({ type: QuotaDto })
  @ApiErrorResponses(404, 422)
  setQuota(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<QuotaDto> {
    return this.commandBus.execute(new SetReviewQuota(org, body));
  }

  @Post(':org/schemas')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.schemas.create', summary: 'Create a target schema' })
  @orgParam
  @ApiBody({ type: SchemaRequestDto })
  @ApiCallbacks(REVIEW_VALIDATE_CALLBACK)
  @ApiCreatedResponse({ type: SchemaResourceDto })
  @ApiErrorResponses(404, 422)
  createSchema(@Param('org') org: string, @Body(schemaJsonShape) body: unknown): Promise<SchemaResourceDto> {
    return this.commandBus.execute(new PutSchema(org, body));
  }

  @Put(':org/schemas/:id')
  @ApiOperation({ operationId: 'admin.schemas.update', summary: 'Replace a target schema (runs keep the version they were created with)' })
  @orgParam
  @idParam('Schema')
  @ApiBody({ type: SchemaRequestDto })
  @ApiCallbacks(REVIEW_VALIDATE_CALLBACK)
  @ApiOkResponse({ type: SchemaResourceDto })
  @ApiErrorResponses(404, 422)
  updateSchema(@Param('org') org: string, @Param('id') id: string, @Body(schemaJsonShape) body: unknown): Promise<SchemaResourceDto> {
    return this.commandBus.execute(new PutSchema(org, body, id));
  }

  @Delete(':org/schemas/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.schemas.delete', summary: 'Delete a target schema' })
  @orgParam
  @idParam('Schema')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(404)
  async deleteSchema(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    await this.commandBus.execute(new DeleteSchema(org, id));
  }

  @Post(':org/providers')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.providers.create', summary: 'Register an AI provider' })
  @orgParam
  @ApiBody({ type: ProviderRequestDto })
  @ApiCreatedResponse({ type: ProviderResourceDto })
  @ApiErrorResponses(404, 422)
  createProvider(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<ProviderResourceDto> {
    return this.commandBus.execute(new PutProvider(org, body));
  }

  @Put(':org/providers/:id')
  @ApiOperation({ operationId: 'admin.providers.update', summary: 'Replace an AI provider' })
  @orgParam
  @idParam('Provider')
  @ApiBody({ type: ProviderRequestDto })
  @ApiOkResponse({ type: ProviderResourceDto })
  @ApiErrorResponses(404, 422)
  updateProvider(@Param('org') org: string, @Param('id') id: string, @Body(jsonShape) body: unknown): Promise<ProviderResourceDto> {
    return this.commandBus.execute(new PutProvider(org, body, id));
  }

  @Delete(':org/providers/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.providers.delete', summary: 'Delete an AI provider' })
  @orgParam
  @idParam('Provider')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(404)
  async deleteProvider(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    await this.commandBus.execute(new DeleteProvider(org, id));
  }
}
