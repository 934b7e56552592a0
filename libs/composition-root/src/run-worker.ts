import { Logger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AsyncMicroserviceOptions, MicroserviceOptions } from '@nestjs/microservices';
import { createServer } from 'node:http';
import { PassErrorsToTransport, RunEventsServer } from '@app/run-event-transport';

/**
 * Starts a worker app (no HTTP API) as its own process: a Nest microservice whose
 * `@EventPattern` handlers run on the run-events transport (RunEventsServer, over the
 * MessageBus port), stopping cleanly on SIGTERM/SIGINT.
 * With HEALTH_PORT set, it also answers probes: GET /healthz (the process and its event
 * loop answer) and GET /readyz (bootstrap finished: adapters connected, consumers subscribed,
 * and no consumer group stuck on a failing event for more than STUCK_AFTER_MS).
 */
/** A group retrying one event for longer than this (an outage, a poison event being retried) makes the worker not ready. */
const STUCK_AFTER_MS = 60_000;

export async function runWorker(module: Type<unknown>, name: string): Promise<{ close(): Promise<void> }> {
  const logger = new Logger(name);
  const transport: AsyncMicroserviceOptions = {
    useFactory: (server: RunEventsServer): MicroserviceOptions => ({ strategy: server }),
    inject: [RunEventsServer],
  };
  const app = await NestFactory.createMicroservice(module, { ...transport, bufferLogs: false });
  app.useGlobalFilters(new PassErrorsToTransport());
  app.enableShutdownHooks();
  await app.listen();
  const port = process.env.HEALTH_PORT ? Number(process.env.HEALTH_PORT) : null;
  let server: ReturnType<typeof createServer> | null = null;
  if (port) {
    let stopping = false;
    process.once('SIGTERM', () => {
      stopping = true;
    });
    const transportServer = app.get(RunEventsServer);
    server = createServer((req, res) => {
      const stuck = transportServer
        .health()
        .filter((g) => g.failing && Date.now() - Date.parse(g.failing.since) > STUCK_AFTER_MS)
        .map((g) => ({ group: g.group, ...g.failing }));
      const ok = req.url === '/healthz' || (req.url === '/readyz' && !stopping && stuck.length === 0);
      res.writeHead(ok ? 200 : req.url === '/readyz' ? 503 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ app: name, status: ok ? 'ok' : 'unavailable', ...(stuck.length > 0 ? { stuck } : {}) }));
    });
    server.listen(port, '0.0.0.0', () => logger.log(`Health probes on :${port} (/healthz, /readyz)`));
    server.unref();
  }
  logger.log(`${name} started`);
  return {
    close: async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await app.close();
    },
  };
}
