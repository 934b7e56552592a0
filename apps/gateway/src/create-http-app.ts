import { Logger, type Type } from '@nestjs/common';
import { ApplicationConfig, NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyCookie from '@fastify/cookie';
import { BLOB_STORE, LocalBlobStore, type BlobStore, type UrlSigner } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { SourceInspector } from '@app/cpu-work';
import { URL_SIGNER } from '@app/blob-storage';
import { LEASE_STORE, type LeaseStore } from '@app/leases';
import { ProjectionWaiter } from '@app/read-model';
import { installAccessLog, standardOutputLog } from '@app/logging';
import { httpRequestDuration } from '@app/metrics';
import { RunEventsServer } from '@app/run-event-transport';
import { RunLinks } from '@app/run-links';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { registerLocalFileRoutes } from './files/local-file-routes';
import { takeIdsInAnyCase } from './http/ids-in-any-case';
import { AdminGuard, ApiKeyGuard } from './http/auth.guard';
import { answerDirectly, directly } from './http/direct-routes';
import { HttpEdge } from './http/http-edge';
import { RAW_BYTES_ROUTE } from './http/raw-bytes-route';
import { serveOpenApiDocuments } from './openapi/serve-documents';
import { PROBE_ROUTES, registerLiveness } from './operations/liveness';
import { MAX_TRIAL_BYTES } from './console/try-file/schema-trial';
import { CatalogController } from './catalog/catalog.controller';
import { TransformationsController } from './transformations/transformations.controller';

/** Builds the HTTP application around a root module (the gateway alone, or every app in one process). */
export async function createHttpApp(
  rootModule: Type<unknown>,
  options: {
    logger?: boolean;
    /** The root also runs the ingestion app: an upload then starts the threads its read will take as its bytes arrive. */
    readsSources?: boolean;
  } = {},
): Promise<NestFastifyApplication> {
  // Request ids, client addresses, framework errors, timeouts and limits: http/http-edge.ts (docs/security.md, "HTTP edge").
  const edge = new HttpEdge();
  const adapter = new FastifyAdapter({
    ...edge.fastifyOptions(),
    bodyLimit: 1024 * 1024,
    // A stop closes idle keep-alive connections at once and lets requests in flight finish, for a while only
    // (HttpEdge's drain): one lingering client cannot hold the process open.
    forceCloseConnections: 'idle',
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, {
    // Lines written while the application starts wait for the structured logger (below).
    ...(options.logger === false ? { logger: false } : { bufferLogs: true }),
    bodyParser: false, // our own JSON parser below: malformed JSON and oversize bodies get the spec's envelope
  });
  if (options.logger !== false) app.useLogger(app.get(PinoLogger));
  const config = app.get<AppConfig>(APP_CONFIG);
  const fastify = app.getHttpAdapter().getInstance();
  // First: the request's log context wraps every later hook and the handler (libs/logging/src/access-log.ts).
  installAccessLog(fastify, config.log, { quietRoutes: PROBE_ROUTES });
  // The log is written asynchronously: a stop waits until every line so far is out (libs/logging/src/log-destination.ts).
  if (config.log.format === 'json') fastify.addHook('onClose', () => standardOutputLog().whenWrittenThrough());
  // Cookies are read only by the console (its session, docs/console.md); the APIs read only Authorization.
  await app.register(fastifyCookie as never);
  // Requests by route template (never the path itself: ids would make a series per run) and status.
  fastify.addHook('onResponse', (request, reply, done) => {
    httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const apiKeys = app.get(ApiKeyGuard);
  const admin = app.get(AdminGuard);
  const links = app.get(RunLinks);
  edge.install(fastify, {
    config,
    authenticateApiKey: (authorization) => apiKeys.authenticate(authorization),
    admitApiKey: (request, reply) => apiKeys.admit(request, reply),
    isKnownApiKey: (authorization) => apiKeys.isKnownKey(authorization),
    authenticateAdmin: (authorization) => admin.authenticate(authorization),
    isValidReviewSignature: (runId, signature) => links.isValidReviewSignature(runId, signature),
  });
  // The public API's reads (a run polled until it is done above all) skip Nest's per-request pipeline
  // (http/direct-routes.ts); Nest still declares them, and their controllers' methods answer them.
  takeIdsInAnyCase(fastify, ['/admin/v1/', '/console/api/']);
  answerDirectly(fastify, apiKeys, app.get(ApplicationConfig), [
    directly(app.get(TransformationsController), ['show', 'index']),
    directly(app.get(CatalogController), ['schemas', 'schema', 'providers', 'provider']),
  ]);
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: config.maxJsonBodyBytes }, (_req, body, done) => {
    // A leading byte order mark (Windows tools write one) is ignored, as RFC 8259 allows; an empty body reads as {} (docs/api.md).
    const raw = body as string;
    const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    try {
      done(null, text === '' ? {} : JSON.parse(text));
    } catch {
      done(Object.assign(new Error('Malformed JSON'), { statusCode: 400 }), undefined);
    }
  });

  // Raw file bytes are taken by one JSON-API route only, the console's "try it" (up to 5 MB); every other route refuses them (415).
  fastify.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: MAX_TRIAL_BYTES }, (request, body, done) => {
    if (request.routeOptions.url === RAW_BYTES_ROUTE) done(null, body);
    else done(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 }), undefined);
  });

  const blobs = app.get<BlobStore>(BLOB_STORE);
  if (blobs instanceof LocalBlobStore) {
    registerLocalFileRoutes(fastify, {
      config,
      signer: app.get<UrlSigner>(URL_SIGNER),
      blobs,
      commandBus: app.get(CommandBus),
      queryBus: app.get(QueryBus),
      leases: app.get<LeaseStore>(LEASE_STORE),
      waiter: app.get(ProjectionWaiter),
      sourceArrival: options.readsSources ? app.get(SourceInspector) : null,
    });
  }

  serveOpenApiDocuments(app, config);
  registerLiveness(fastify);

  // A hybrid application: the HTTP API plus the @EventPattern handlers of whichever worker
  // modules the root imports (all of them in the one-process default), on the run-events
  // transport. The handlers start once every module has initialised.
  app.connectMicroservice({ strategy: app.get(RunEventsServer) }, { inheritAppConfig: true });
  app.enableShutdownHooks();
  await app.init();
  await app.startAllMicroservices();
  return app;
}

export async function listen(app: NestFastifyApplication): Promise<void> {
  const config = app.get<AppConfig>(APP_CONFIG);
  await app.listen(config.port, config.host);
  const adminAt = config.http.adminListener;
  new Logger('Gateway').log(
    `Listening on ${config.host}:${config.port}; public URL ${config.publicBaseUrl}; data in ${config.dataDir}` +
      (adminAt ? `; admin API on ${adminAt.host}:${adminAt.port} only` : ''),
  );
  if (!config.adminToken) new Logger('Gateway').warn('ADMIN_TOKEN is not set: the admin API refuses every call.');
}

/** Ends a process whose service could not start (a bad setting, a port in use), with the reason first. */
export function failedToStart(err: unknown): never {
  // A failure before listen() finds Nest still holding log lines for later (bufferLogs): out with them, and this one.
  Logger.flush();
  new Logger('Gateway').error(`The service could not start: ${err instanceof Error ? err.message : String(err)}`, (err as Error)?.stack);
  process.exit(1);
}
