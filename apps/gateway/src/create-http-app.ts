import { Logger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { BLOB_STORE, LocalBlobStore, type BlobStore, type UrlSigner } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { URL_SIGNER } from '@app/infrastructure';
import { RunCommandHandler } from '@app/runs';
import { registerLocalFileRoutes } from './files/local-file-routes';
import { serveOpenApiDocuments } from './openapi/serve-documents';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Builds the HTTP application around a root module (the gateway alone, or every app in one process). */
export async function createHttpApp(rootModule: Type<unknown>, options: { logger?: boolean } = {}): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // A caller's X-Request-Id is kept when it is safe; else one is made. Every response carries it.
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    trustProxy: true,
    // Shutdown must not wait on clients: keep-alive connections (idle or not) are closed,
    // else one lingering client holds the process open. Work in flight is safe: the
    // pipeline resumes from its checkpoints and uploads are atomic.
    forceCloseConnections: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, {
    logger: options.logger === false ? false : ['log', 'warn', 'error'],
    bodyParser: false, // our own JSON parser below: malformed JSON and oversize bodies get the spec's envelope
  });
  const config = app.get<AppConfig>(APP_CONFIG);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', String(request.id));
  });
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: config.maxJsonBodyBytes }, (_req, body, done) => {
    try {
      done(null, body === '' ? {} : JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('Malformed JSON'), { statusCode: 400 }), undefined);
    }
  });

  const blobs = app.get<BlobStore>(BLOB_STORE);
  if (blobs instanceof LocalBlobStore) {
    registerLocalFileRoutes(fastify, { config, signer: app.get<UrlSigner>(URL_SIGNER), blobs, commands: app.get(RunCommandHandler) });
  }

  serveOpenApiDocuments(app, config);

  app.enableShutdownHooks();
  return app;
}

export async function listen(app: NestFastifyApplication): Promise<void> {
  const config = app.get<AppConfig>(APP_CONFIG);
  await app.listen(config.port, config.host);
  new Logger('Gateway').log(`Listening on ${config.host}:${config.port}; public URL ${config.publicBaseUrl}; data in ${config.dataDir}`);
  if (!config.adminToken) new Logger('Gateway').warn('ADMIN_TOKEN is not set: the admin API refuses every call.');
}
