import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ProviderResourceDto, SchemaResourceDto } from '../catalog/catalog.dto';
import { AdminGuard } from '../http/auth.guard';
import { jsonShape } from '../http/json-shape-limits';
import { ApiErrorResponses } from '../openapi/error-responses';
import { ADMIN_TOKEN_SCHEME } from '../openapi/security-schemes';
import {
  CreateOrganizationRequestDto,
  ApiKeyListDto,
  CreatedOrganizationDto,
  IssuedApiKeyDto,
  ProviderRequestDto,
  QuotaDto,
  QuotaRequestDto,
  SchemaRequestDto,
  WebhookSecretDto,
  WebhookSettingsDto,
  WebhookSettingsRequestDto,
} from './admin.dto';
import { AdminService } from './admin.service';

const orgParam = ApiParam({ name: 'org', description: 'Organization id (UUID).' });
const idParam = (what: string) => ApiParam({ name: 'id', description: `${what} id (UUID).` });

/**
 * The admin API under /admin/v1 (docs/api.md, "Admin API"). It has its own OpenAPI document,
 * /admin/openapi.json (openapi/admin-document.ts), and is not part of the public one.
 */
@ApiTags('admin')
@ApiBearerAuth(ADMIN_TOKEN_SCHEME)
@UseGuards(AdminGuard)
@Controller('admin/v1/organizations')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.organizations.create', summary: 'Create an organization and its first API key' })
  @ApiBody({ type: CreateOrganizationRequestDto })
  @ApiCreatedResponse({ type: CreatedOrganizationDto })
  @ApiErrorResponses(422)
  createOrganization(@Body(jsonShape) body: unknown): Promise<CreatedOrganizationDto> {
    return this.admin.createOrganization(body);
  }

  @Post(':org/api-keys')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.apiKeys.create', summary: 'Issue another API key' })
  @orgParam
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiErrorResponses(404)
  issueKey(@Param('org') org: string): Promise<IssuedApiKeyDto> {
    return this.admin.issueKey(org);
  }

  @Get(':org/api-keys')
  @ApiOperation({ operationId: 'admin.apiKeys.index', summary: "List the organization's API keys (ids and prefixes, never secrets)" })
  @orgParam
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrorResponses(404)
  listKeys(@Param('org') org: string): Promise<ApiKeyListDto> {
    return this.admin.listKeys(org);
  }

  @Delete(':org/api-keys/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.apiKeys.revoke', summary: 'Revoke an API key (it stops working at once)' })
  @orgParam
  @idParam('API key')
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiErrorResponses(404)
  async revokeKey(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    await this.admin.revokeKey(org, id);
  }

  @Put(':org/webhook')
  @ApiOperation({ operationId: 'admin.webhook.update', summary: 'Set or remove the default webhook URL' })
  @orgParam
  @ApiBody({ type: WebhookSettingsRequestDto })
  @ApiOkResponse({ type: WebhookSettingsDto })
  @ApiErrorResponses(404, 422)
  setWebhook(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<WebhookSettingsDto> {
    return this.admin.setWebhook(org, body);
  }

  @Post(':org/webhook/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ operationId: 'admin.webhook.rotateSecret', summary: 'Replace the webhook secret' })
  @orgParam
  @ApiOkResponse({ type: WebhookSecretDto })
  @ApiErrorResponses(404)
  rotateSecret(@Param('org') org: string): Promise<WebhookSecretDto> {
    return this.admin.rotateWebhookSecret(org);
  }

  @Put(':org/quota')
  @ApiOperation({ operationId: 'admin.quota.update', summary: 'Set the review-preparation quota' })
  @orgParam
  @ApiBody({ type: QuotaRequestDto })
  @ApiOkResponse({ type: QuotaDto })
  @ApiErrorResponses(404, 422)
  setQuota(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<QuotaDto> {
    return this.admin.setQuota(org, body);
  }

  @Post(':org/schemas')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.schemas.create', summary: 'Create a target schema' })
  @orgParam
  @ApiBody({ type: SchemaRequestDto })
  @ApiCreatedResponse({ type: SchemaResourceDto })
  @ApiErrorResponses(404, 422)
  createSchema(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<SchemaResourceDto> {
    return this.admin.putSchema(org, body);
  }

  @Put(':org/schemas/:id')
  @ApiOperation({ operationId: 'admin.schemas.update', summary: 'Replace a target schema (runs keep the version they were created with)' })
  @orgParam
  @idParam('Schema')
  @ApiBody({ type: SchemaRequestDto })
  @ApiOkResponse({ type: SchemaResourceDto })
  @ApiErrorResponses(404, 422)
  updateSchema(@Param('org') org: string, @Param('id') id: string, @Body(jsonShape) body: unknown): Promise<SchemaResourceDto> {
    return this.admin.putSchema(org, body, id);
  }

  @Delete(':org/schemas/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.schemas.delete', summary: 'Delete a target schema' })
  @orgParam
  @idParam('Schema')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(404)
  async deleteSchema(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    await this.admin.deleteSchema(org, id);
  }

  @Post(':org/providers')
  @HttpCode(201)
  @ApiOperation({ operationId: 'admin.providers.create', summary: 'Register an AI provider' })
  @orgParam
  @ApiBody({ type: ProviderRequestDto })
  @ApiCreatedResponse({ type: ProviderResourceDto })
  @ApiErrorResponses(404, 422)
  createProvider(@Param('org') org: string, @Body(jsonShape) body: unknown): Promise<ProviderResourceDto> {
    return this.admin.putProvider(org, body);
  }

  @Put(':org/providers/:id')
  @ApiOperation({ operationId: 'admin.providers.update', summary: 'Replace an AI provider' })
  @orgParam
  @idParam('Provider')
  @ApiBody({ type: ProviderRequestDto })
  @ApiOkResponse({ type: ProviderResourceDto })
  @ApiErrorResponses(404, 422)
  updateProvider(@Param('org') org: string, @Param('id') id: string, @Body(jsonShape) body: unknown): Promise<ProviderResourceDto> {
    return this.admin.putProvider(org, body, id);
  }

  @Delete(':org/providers/:id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin.providers.delete', summary: 'Delete an AI provider' })
  @orgParam
  @idParam('Provider')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(404)
  async deleteProvider(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    await this.admin.deleteProvider(org, id);
  }
}
