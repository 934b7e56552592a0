import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiExcludeController } from '@nestjs/swagger';
import { Readiness, readinessAnswer } from '@app/composition-root';
import { registry, scrape } from '@app/metrics';

/**
 * What operators and orchestrators ask the process (docs/operations.md): readiness and
 * Prometheus metrics (liveness, `/healthz`, is a plain Fastify route: liveness.ts). Not part of the customer API, so not in the OpenAPI documents.
 * The workers answer the same three paths on HEALTH_PORT (libs/composition-root/src/run-worker.ts).
 */
@ApiExcludeController()
@Controller()
export class OperationsController {
  constructor(private readonly readiness: Readiness) {}

  /** 200 when the stores answer and every consumer group consumes; 503 with the details otherwise (terminus). */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const { status, body } = await readinessAnswer(this.readiness);
    await reply.code(status).send(body);
  }

  @Get('metrics')
  @Header('content-type', registry.contentType)
  async metrics(): Promise<string> {
    return (await scrape()).body;
  }
}
