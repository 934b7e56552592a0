import { Body, Controller, Get, Header, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { reviewPage, invalidLinkPage } from './review.page';
import { ReviewService } from './review.service';

const mappingOf = (body: unknown): unknown => (body && typeof body === 'object' ? (body as { mapping_rule?: unknown }).mapping_rule : undefined);

/** The hosted review page and the JSON calls it makes, all under the run's signed link. */
@ApiExcludeController()
@Controller('review/:runId')
export class ReviewController {
  constructor(private readonly review: ReviewService) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  async page(@Param('runId') runId: string, @Query('signature') signature: string, @Res() reply: FastifyReply) {
    try {
      await this.review.authorize(runId, signature);
    } catch {
      return reply.status(403).send(invalidLinkPage());
    }
    return reply.send(reviewPage(runId, signature));
  }

  @Get('state')
  async state(@Param('runId') runId: string, @Query('signature') signature: string) {
    return this.review.view(await this.review.authorize(runId, signature));
  }

  @Put('mapping')
  async editMapping(@Param('runId') runId: string, @Query('signature') signature: string, @Body() body: unknown, @Req() req: FastifyRequest) {
    const run = await this.review.authorize(runId, signature);
    const mapping = mappingOf(body);
    if (mapping === undefined) throw ApiError.validation({ mapping_rule: ['The mapping rule field is required.'] });
    return this.review.act(run, { type: 'EditMapping', mapping_rule: mapping as Record<string, string | null>, at: new Date().toISOString() }, String(req.id));
  }

  @Post('approve')
  @HttpCode(200)
  async approve(@Param('runId') runId: string, @Query('signature') signature: string, @Body() body: unknown, @Req() req: FastifyRequest) {
    const run = await this.review.authorize(runId, signature);
    // Approve exactly the mapping the page shows; without one, the current mapping.
    const mapping = mappingOf(body) ?? run.mapping_rule ?? {};
    return this.review.act(run, { type: 'ApproveReview', mapping_rule: mapping as Record<string, string | null>, at: new Date().toISOString() }, String(req.id));
  }

  @Post('cancel')
  @HttpCode(200)
  async cancel(@Param('runId') runId: string, @Query('signature') signature: string, @Req() req: FastifyRequest) {
    const run = await this.review.authorize(runId, signature);
    return this.review.act(run, { type: 'CancelReview', at: new Date().toISOString() }, String(req.id));
  }
}
