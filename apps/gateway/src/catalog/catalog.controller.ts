import { Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory } from '@app/read-model';
import { ApiError } from '../http/api-error';
import { ApiKeyGuard, type AuthenticatedRequest } from '../http/auth.guard';
import { pageRequest, paginate } from '../http/pagination';
import { presentProvider, presentSchema } from './catalog.presenters';

const pageQueries = () => (target: object, key: string | symbol, desc: PropertyDescriptor) => {
  ApiQuery({ name: 'page', required: false, type: Number, description: '1-based page number' })(target, key, desc);
  ApiQuery({ name: 'per_page', required: false, type: Number, description: 'Items per page: default 15, maximum 100' })(target, key, desc);
};

/** Read-only lists of the organization's providers and schemas (managed through the admin API). */
@ApiTags('catalog')
@ApiBearerAuth()
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
  async providers(@Req() req: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const page = pageRequest(query, this.config);
    const { items, total } = await this.directory.listProviders(req.caller!.organizationId, page.offset, page.perPage);
    return paginate(items.map(presentProvider), total, page, `${this.config.publicBaseUrl}/v1/providers`);
  }

  @Get('providers/:provider')
  @ApiOperation({ operationId: 'v1.providers.show', summary: 'Show an AI provider' })
  async provider(@Req() req: AuthenticatedRequest, @Param('provider') id: string) {
    const p = await this.directory.getProvider(req.caller!.organizationId, id);
    if (!p) throw ApiError.notFound('provider');
    return { data: presentProvider(p) };
  }

  @Get('schemas')
  @ApiOperation({ operationId: 'v1.schemas.index', summary: 'List target schemas' })
  @pageQueries()
  async schemas(@Req() req: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    const page = pageRequest(query, this.config);
    const { items, total } = await this.directory.listSchemas(req.caller!.organizationId, page.offset, page.perPage);
    return paginate(items.map(presentSchema), total, page, `${this.config.publicBaseUrl}/v1/schemas`);
  }

  @Get('schemas/:schema')
  @ApiOperation({ operationId: 'v1.schemas.show', summary: 'Show a target schema' })
  async schema(@Req() req: AuthenticatedRequest, @Param('schema') id: string) {
    const s = await this.directory.getSchema(req.caller!.organizationId, id);
    if (!s) throw ApiError.notFound('schema');
    return { data: presentSchema(s) };
  }
}
