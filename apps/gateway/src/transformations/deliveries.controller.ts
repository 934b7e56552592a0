import { Controller, Get, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../http/api-error';
import { ApiKeyGuard, type AuthenticatedRequest } from '../http/auth.guard';
import { ApiErrorResponses } from '../openapi/error-responses';
import { API_KEY_SCHEME } from '../openapi/security-schemes';
import { DeliveriesService } from './deliveries.service';
import { DeliveryListDto } from './deliveries.dto';
import { UUID_RE } from '../http/ids-in-any-case';

/** A run's webhook delivery attempts (docs/api.md, "Webhook deliveries of a run"). */
@ApiTags('transformations')
@ApiBearerAuth(API_KEY_SCHEME)
@UseGuards(ApiKeyGuard)
@Controller('v1/transformations')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get(':transformationRun/deliveries')
  @ApiOperation({
    operationId: 'v1.transformations.deliveries',
    summary: "List a run's webhook delivery attempts",
    description: "Every attempt to deliver the run's webhooks, newest first, paged.",
  })
  @ApiParam({ name: 'transformationRun', description: 'The run UUID (anything else is 404).' })
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 }, description: '1-based page number.' })
  @ApiQuery({
    name: 'per_page',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    description: 'Items per page: default 20, maximum 100.',
  })
  @ApiOkResponse({ type: DeliveryListDto, description: 'A page of delivery attempts, newest first.' })
  @ApiErrorResponses(404, 422)
  list(
    @Req() req: AuthenticatedRequest,
    @Param('transformationRun') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<DeliveryListDto> {
    if (!UUID_RE.test(id)) throw ApiError.notFound('transformation run');
    return this.deliveries.listRunDeliveries(req.caller!.organizationId, id.toLowerCase(), query);
  }
}
