import { Body, Controller, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard, type AuthenticatedRequest } from '../http/auth.guard';
import { ApiError } from '../http/api-error';
import { CreateFileRunDto, CreateRawRunDto, CreatedRunDto, RunDto } from './transformation.dto';
import { TransformationsService } from './transformations.service';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@ApiTags('transformations')
@ApiBearerAuth()
@UseGuards(ApiKeyGuard)
@Controller('v1/transformations')
export class TransformationsController {
  constructor(private readonly service: TransformationsService) {}

  @Post('file')
  @HttpCode(201)
  @ApiOperation({ operationId: 'v1.transformations.file', summary: 'Initialize a file-based run' })
  @ApiBody({ type: CreateFileRunDto })
  @ApiCreatedResponse({ type: CreatedRunDto })
  createFile(@Req() req: AuthenticatedRequest, @Body() body: unknown): Promise<CreatedRunDto> {
    return this.service.createFileRun(req.caller!, body, String(req.id));
  }

  @Post('raw')
  @HttpCode(201)
  @ApiOperation({ operationId: 'v1.transformations.raw', summary: 'Start a raw-content run' })
  @ApiBody({ type: CreateRawRunDto })
  @ApiCreatedResponse({ type: CreatedRunDto })
  createRaw(@Req() req: AuthenticatedRequest, @Body() body: unknown): Promise<CreatedRunDto> {
    return this.service.createRawRun(req.caller!, body, String(req.id));
  }

  @Get(':transformationRun')
  @ApiOperation({ operationId: 'v1.transformations.show', summary: 'Show a run (for polling)' })
  @ApiOkResponse({ type: RunDto })
  show(@Req() req: AuthenticatedRequest, @Param('transformationRun') id: string): Promise<RunDto> {
    if (!UUID_RE.test(id)) throw ApiError.notFound('transformation run');
    return this.service.show(req.caller!, id.toLowerCase());
  }
}
