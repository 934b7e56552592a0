import { Body, Controller, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard, type AuthenticatedRequest } from '../http/auth.guard';
import { ApiError } from '../http/api-error';
import { ApiErrorResponses } from '../openapi/error-responses';
import { API_KEY_SCHEME } from '../openapi/security-schemes';
import { CreateFileRunDto, CreateRawRunDto, CreatedFileRunDto, CreatedRawRunDto, RunDto } from './transformation.dto';
import { TransformationsService } from './transformations.service';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@ApiTags('transformations')
@ApiBearerAuth(API_KEY_SCHEME)
@UseGuards(ApiKeyGuard)
@Controller('v1/transformations')
export class TransformationsController {
  constructor(private readonly service: TransformationsService) {}

  @Post('file')
  @HttpCode(201)
  @ApiOperation({ operationId: 'v1.transformations.file', summary: 'Initialize a file-based run' })
  @ApiBody({ type: CreateFileRunDto })
  @ApiCreatedResponse({ type: CreatedFileRunDto, description: 'Created: status `awaiting_upload`, with upload instructions.' })
  @ApiErrorResponses(422)
  createFile(@Req() req: AuthenticatedRequest, @Body() body: unknown): Promise<CreatedFileRunDto> {
    return this.service.createFileRun(req.caller!, body, String(req.id));
  }

  @Post('raw')
  @HttpCode(201)
  @ApiOperation({ operationId: 'v1.transformations.raw', summary: 'Start a raw-content run' })
  @ApiBody({ type: CreateRawRunDto })
  @ApiCreatedResponse({ type: CreatedRawRunDto, description: 'Created: status `queued`, review preparation dispatched.' })
  @ApiErrorResponses(422)
  createRaw(@Req() req: AuthenticatedRequest, @Body() body: unknown): Promise<CreatedRawRunDto> {
    return this.service.createRawRun(req.caller!, body, String(req.id));
  }

  @Get(':transformationRun')
  @ApiOperation({ operationId: 'v1.transformations.show', summary: 'Show a run (for polling)' })
  @ApiParam({ name: 'transformationRun', description: 'The run UUID (anything else is 404).' })
  @ApiOkResponse({ type: RunDto, description: 'The run (not wrapped in `data`).' })
  @ApiErrorResponses(404)
  show(@Req() req: AuthenticatedRequest, @Param('transformationRun') id: string): Promise<RunDto> {
    if (!UUID_RE.test(id)) throw ApiError.notFound('transformation run');
    return this.service.show(req.caller!, id.toLowerCase());
  }
}
