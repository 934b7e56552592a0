import { type INestMicroservice, Logger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import type { AsyncMicroserviceOptions, MicroserviceOptions } from '@nestjs/microservices';
import { createServer } from 'node:http';
import { healthPort } from '@app/config';
import { refuseStart } from '@app/logging';
import { scrape } from '@app/metrics';
import { PassErrorsToTransport, RunEventsServer } from '@app/run-event-transport';
import { Readiness, readinessAnswer } from './readiness';

/**
 * Starts a worker app (no HTTP API) as its own process: a Nest microservice whose
 * `@EventPattern` handlers run on the run-events transport (RunEventsServer, over the
 * MessageBus port), stopping cleanly on SIGTERM/SIGINT.
 * With HEALTH_PORT set, it also answers operators on that port: GET /healthz (the process
 * and its event loop answer), GET /readyz (terminus: stores answer, every consumer group
 * consumes and none is stuck; see Readiness) and GET /metrics (Prometheus).
 */
export async function runWorker(module: Type<unknown>, name: string): Promise<{ app: INestMicroservice; close(): Promise<void> }> {
  const logger = new Logger(name);
  let port: number | null;
  try {
    port = healthPort(process.env);
  } catch (err) {
    return refuseStart(err as Error);
  }
  const transport: AsyncMicroserviceOptions = {
    useFactory: (server: RunEventsServer): MicroserviceOptions => ({ strategy: server }),
    inject: [RunEventsServer],
  };
  const app = await NestFactory.createMicroservice(module, { ...transport, bufferLogs: true });
  app.useLogger(app.get(PinoLogger));
  app.useGlobalFilters(new PassErrorsToTransport());
  app.enableShutdownHooks();
  await app.listen();
  let server: ReturnType<typeof createServer> | null = null;
  if (port) {
    const readiness = app.get(Readiness);
    process.once('SIGTERM', () => readiness.markStopping());
    server = createServer((req, res) => {
      void answerOperator(req.url ?? '', readiness).then(({ status, contentType, body }) => {
        res.writeHead(status, { 'content-type': contentType });
        res.end(body);
      });
    });
    server.listen(port, '0.0.0.0', () => logger.log(`Health and metrics on :${port} (/healthz, /readyz, /metrics)`));
    server.unref();
  }
  logger.log(`${name} started`);
  return {
    app,
    close: async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await app.close();
    },
  };
}

async function answerOperator(url: string, readiness: Readiness): Promise<{ status: number; contentType: string; body: string }> {
  const path = url.split('?')[0];
  if (path === '/healthz') return { status: 200, contentType: 'application/json', body: JSON.stringify({ status: 'ok' }) };
  if (path === '/readyz') {
    const { status, body } = await readinessAnswer(readiness);
    return { status, contentType: 'application/json', body: JSON.stringify(body) };
  }
  if (path === '/metrics') {
    const { contentType, body } = await scrape();
    return { status: 200, contentType, body };
  }
  return { status: 404, contentType: 'application/json', body: JSON.stringify({ status: 'not found' }) };
}
