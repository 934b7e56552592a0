import { applyDecorators, Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { parseRunListQuery } from './run-list';
import type { FastifyReply } from 'fastify';
import { ApiKeyGuard, type AuthenticatedRequest } from '../http/auth.guard';
import { ApiError } from '../http/api-error';
import { runJsonShape } from '../http/json-shape-limits';
import { ApiErrorResponses } from '../openapi/error-responses';
import { API_KEY_SCHEME } from '../openapi/security-schemes';
import { IDEMPOTENCY_HEADER, type IdempotentAnswer, idempotencyKeyOf } from './idempotency';
import { CreateFileRunDto, CreateRawRunDto, CreatedFileRunDto, CreatedRawRunDto, RunDto, RunListDto } from './transformation.dto';
import { TransformationsService } from './transformations.service';
import { UUID_RE } from '../http/ids-in-any-case';

const REPLAYED_HEADER = 'Idempotent-Replayed';

/** What both run-creating POSTs document: the Idempotency-Key request header and the replay header of the 201. */
const IdempotentCreation = (type: typeof CreatedFileRunDto | typeof CreatedRawRunDto, description: string) =>
  applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: false,
      description:
        'Makes retries safe: the same key with the same request within 24 hours answers with the first 201 again (with `Idempotent-Replayed: true`) and creates nothing; the key with another request is 422 `validation_failed` naming the `Idempotency-Key` header in `fields`; while the first request is still running, 409 `idempotency_key_in_use`. Keys are scoped to the organization.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\x20-\x7e]+$' },
    }),
    ApiCreatedResponse({
      type,
      description,
      headers: {
        [REPLAYED_HEADER]: {
          description: 'Present (`true`) when this is the stored answer of an earlier request with the same Idempotency-Key.',
          required: false,
          schema: { type: 'string', enum: ['true'] },
        },
        Location: {
          description: "The URL of the run created (`GET /v1/transformations/{id}`), as RFC 9110 names a 201's new resource.",
          required: true,
          schema: { type: 'string', format: 'uri' },
        },
      },
    }),
    ApiErrorResponses(409, 422),
  );

/**
 * Sends a run-creating answer, marking a replay, with the new run's URL in `Location` (RFC 9110 §15.3.2: without
 * it a 201 names its target, `/v1/transformations/file`, as the resource it created).
 */
function reply<T extends { id: string }>(res: FastifyReply, answer: IdempotentAnswer<T>, runsUrl: string): T {
  if (answer.replayed) void res.header(REPLAYED_HEADER, 'true');
  void res.header('Location', `${runsUrl}/${answer.body.id}`);
  return answer.body;
}

@ApiTags('transformations')
@ApiBearerAuth(API_KEY_SCHEME)
@UseGuards(ApiKeyGuard)
@Controller('v1/transformations')
export class TransformationsController {
  constructor(
    private readonly service: TransformationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get runsUrl(): string {
    return `${this.config.publicBaseUrl}/v1/transformations`;
  }

  @Post('file')
  @HttpCode(201)
  @ApiOperation({ operationId: 'v1.transformations.file', summary: 'Initialize a file-based run' })
  @ApiBody({ type: CreateFileRunDto })
  @IdempotentCreation(CreatedFileRunDto, 'Created: status `awaiting_upload`, with upload instructions.')
  async createFile(
    @Req() req: AuthenticatedRequest,
    @Body(runJsonShape) body: unknown,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<CreatedFileRunDto> {
    const answer = await this.service.createFileRun(req.caller!, body, String(req.id), idempotencyKeyOf(req.raw.rawHeaders));
    return reply(res, answer, this.runsUrl);
  }

  @Post('raw')
  @HttpCode(201)
  @ApiOperation({ operationId: 'v1.transformations.raw', summary: 'Start a raw-content run' })
  @ApiBody({ type: CreateRawRunDto })
  @IdempotentCreation(CreatedRawRunDto, 'Created: status `queued`, review preparation dispatched.')
  async createRaw(
    @Req() req: AuthenticatedRequest,
    @Body(runJsonShape) body: unknown,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<CreatedRawRunDto> {
    const answer = await this.service.createRawRun(req.caller!, body, String(req.id), idempotencyKeyOf(req.raw.rawHeaders));
    return reply(res, answer, this.runsUrl);
  }

  @Get()
  @ApiOperation({ operationId: 'v1.transformations.index', summary: "List the organization's runs, newest first" })
  @ApiQuery({ name: 'status', required: false, enum: ['awaiting_upload', 'queued', 'processing', 'completed', 'failed'] })
  @ApiQuery({ name: 'stage', required: false, enum: ['review', 'final'] })
  @ApiQuery({
    name: 'created_after',
    required: false,
    description: 'ISO 8601 date or date-time: runs created at or after it.',
    schema: { type: 'string' },
  })
  @ApiQuery({
    name: 'created_before',
    required: false,
    description: 'ISO 8601 date or date-time: runs created at or before it (a date includes its whole day, UTC).',
    schema: { type: 'string' },
  })
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } })
  @ApiQuery({ name: 'per_page', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiOkResponse({ type: RunListDto, description: 'Pagination envelope whose `data` items are run resources.' })
  @ApiErrorResponses(422)
  index(@Req() req: AuthenticatedRequest, @Query() query: Record<string, unknown>) {
    return this.service.list(req.caller!.organizationId, parseRunListQuery(query), this.runsUrl);
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
