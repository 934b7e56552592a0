import { applyDecorators, Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory } from '@app/directory';
import { ApiError } from '../http/api-error';
import { ApiKeyGuard, type AuthenticatedRequest } from '../http/auth.guard';
import { pageRequest, paginate } from '../http/pagination';
import { ApiErrorResponses } from '../openapi/error-responses';
import { API_KEY_SCHEME } from '../openapi/security-schemes';
import { ProviderListDto, ProviderResourceDto, SchemaListDto, SchemaResourceDto } from './catalog.dto';
import { presentProvider, presentSchema } from './catalog.presenters';

/** `?page=` and `?per_page=` (http/pagination.ts: default 15, maximum 100; out of range is 422). */
const pageQueries = () =>
  applyDecorators(
    ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 }, description: '1-based page number.' }),
    ApiQuery({
      name: 'per_page',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 15 },
      description: 'Items per page: default 15, maximum 100.',
    }),
    ApiErrorResponses(422),
  );

/** Read-only lists of the organization's providers and schemas (managed through the admin API). */
@ApiTags('catalog')
@ApiBearerAuth(API_KEY_SCHEME)
@UseGuards(ApiKeyGuard)
@Controller('v1')
export class CatalogController {
  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('providers')
  @ApiOperation({ operationId: 'v1.providers.index', summary: 'List AI providers' })
  @pageQueries()
  @ApiOkResponse({ type: ProviderListDto, description: 'A page of providers, in creation order.' })
  async providers(@Req() req: AuthenticatedRequest, @Query() query: Record<string, unknown>): Promise<ProviderListDto> {
    const page = pageRequest(query, this.config);
    const { items, total } = await this.directory.listProviders(req.caller!.organizationId, page.offset, page.perPage);
    return paginate(items.map(presentProvider), total, page, `${this.config.publicBaseUrl}/v1/providers`);
  }

  @Get('providers/:provider')
  @ApiOperation({ operationId: 'v1.providers.show', summary: 'Show an AI provider' })
  @ApiParam({ name: 'provider', description: 'Provider id (UUID).' })
  @ApiOkResponse({ type: ProviderResourceDto })
  @ApiErrorResponses(404)
  async provider(@Req() req: AuthenticatedRequest, @Param('provider') id: string): Promise<ProviderResourceDto> {
    const p = await this.directory.getProvider(req.caller!.organizationId, id.toLowerCase());
    if (!p) throw ApiError.notFound('provider');
    return { data: presentProvider(p) };
  }

  @Get('schemas')
  @ApiOperation({ operationId: 'v1.schemas.index', summary: 'List target schemas' })
  @pageQueries()
  @ApiOkResponse({ type: SchemaListDto, description: 'A page of schemas, in creation order.' })
  async schemas(@Req() req: AuthenticatedRequest, @Query() query: Record<string, unknown>): Promise<SchemaListDto> {
    const page = pageRequest(query, this.config);
    const { items, total } = await this.directory.listSchemas(req.caller!.organizationId, page.offset, page.perPage);
    return paginate(items.map(presentSchema), total, page, `${this.config.publicBaseUrl}/v1/schemas`);
  }

  @Get('schemas/:schema')
  @ApiOperation({ operationId: 'v1.schemas.show', summary: 'Show a target schema' })
  @ApiParam({ name: 'schema', description: 'Schema id (UUID).' })
  @ApiOkResponse({ type: SchemaResourceDto })
  @ApiErrorResponses(404)
  async schema(@Req() req: AuthenticatedRequest, @Param('schema') id: string): Promise<SchemaResourceDto> {
    const s = await this.directory.getSchema(req.caller!.organizationId, id.toLowerCase());
    if (!s) throw ApiError.notFound('schema');
    return { data: presentSchema(s) };
  }
}
