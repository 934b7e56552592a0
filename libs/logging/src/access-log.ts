import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { Store, storage } from 'nestjs-pino/storage';
import pino from 'pino';
import type { LogSettings } from '@app/config';
import type { LogFields } from './log-fields';
import { accessLoggerOptions, logDestination } from './logger-params';
import { redactUrl } from './redact-url';
import { RepeatedLines } from './repeated-lines';

/** What decides whether a request's access line is written. */
export interface AnsweredRequest {
  method: string;
  statusCode: number;
  elapsedMs: number;
  /** A probe or scrape (/healthz, /readyz, /metrics): its successes are never logged. */
  quiet: boolean;
}

const isRead = (method: string): boolean => method === 'GET' || method === 'HEAD';

/**
 * Whether to write a request's access line, and at which level (null: not at all). Every
 * error (4xx, 5xx) and every slow request is written; the successes of quiet routes never;
 * the successes of GET and HEAD at `successSampleRate` (polling clients ask thousands of
 * times a second: the lines would cost more than the answers and drown what matters);
 * every other request (a write) always. Pure, but for the `random` it is given.
 */
export function accessLogLevel(
  request: AnsweredRequest,
  settings: Pick<LogSettings, 'successSampleRate' | 'slowRequestMs'>,
  random: () => number = Math.random,
): 'error' | 'warn' | 'info' | null {
  if (request.statusCode >= 500) return 'error';
  if (request.elapsedMs >= settings.slowRequestMs) return 'warn';
  if (request.statusCode >= 400) return 'info';
  if (request.quiet) return null;
  if (isRead(request.method)) return random() < settings.successSampleRate ? 'info' : null;
  return 'info';
}

interface RequestSummary {
  id: string;
  method: string;
  url: string;
}

/**
 * The log context of one request (nestjs-pino's store: every Nest `Logger` line written
 * while it is handled goes through `logger`). Its child logger is made only when a line is
 * written: most requests write none, and a pino child costs more than the rest of this hook.
 */
class RequestLogStore implements Store {
  /** Fields added while the request is handled (the caller's organization); they go on its access line too. */
  readonly fields: LogFields = {};
  responseLogger = undefined;
  private child: pino.Logger | null = null;

  constructor(
    private readonly root: pino.Logger,
    readonly req: RequestSummary,
  ) {}

  get logger(): pino.Logger {
    // The URL loses its signatures here too, as on the access line (a signed upload URL is a credential).
    this.child ??= this.root.child({ req: { ...this.req, url: redactUrl(this.req.url) }, ...this.fields });
    return this.child;
  }

  set logger(logger: pino.Logger) {
    this.child = logger;
  }

  add(fields: LogFields): void {
    Object.assign(this.fields, fields);
    if (this.child) this.child = this.child.child(fields);
  }
}

/** Adds fields to the request's lines and access line; false when no request is under way. */
export function addRequestLogFields(fields: LogFields): boolean {
  const store = storage.getStore();
  if (!(store instanceof RequestLogStore)) return false;
  store.add(fields);
  return true;
}

const contexts = new WeakMap<FastifyRequest, RequestLogStore>();

/**
 * The access log and the request's log context, as two Fastify hooks on every route:
 * `onRequest` runs the rest of the request inside its log context (nestjs-pino's storage),
 * `onResponse` writes the access line when `accessLogLevel` says so, with the request id,
 * method, URL (signatures redacted), status, time and the fields added meanwhile. Quiet
 * routes (probes) get no context: they log nothing of their own. Of the fast successful
 * reads alike (method, route, status, organization or else client address), one line is
 * written per `repeatWindowMs` and says how many others it stands for (`repeats`).
 */
export function installAccessLog(
  fastify: FastifyInstance,
  settings: LogSettings,
  options: { quietRoutes: ReadonlySet<string>; destination?: pino.DestinationStream; random?: () => number; now?: () => number },
): void {
  const access = pino(accessLoggerOptions(settings), options.destination ?? logDestination(settings));
  const random = options.random ?? Math.random;
  const isQuiet = (request: FastifyRequest) => options.quietRoutes.has(request.routeOptions.url ?? '');
  const repeated = new RepeatedLines(settings.repeatWindowMs);
  const now = options.now ?? Date.now;

  fastify.addHook('onRequest', (request, _reply, done) => {
    // PinoLogger.root: the service's logger as nestjs-pino set it up (absent when the application logs nothing).
    const root = PinoLogger.root as pino.Logger | undefined;
    if (!root || isQuiet(request)) return done();
    const store = new RequestLogStore(root, { id: String(request.id), method: request.method, url: request.url });
    contexts.set(request, store);
    storage.run(store, done);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    const elapsedMs = reply.elapsedTime;
    const level = accessLogLevel(
      { method: request.method, statusCode: reply.statusCode, elapsedMs, quiet: isQuiet(request) },
      settings,
      random,
    );
    if (level === null || !access.isLevelEnabled(level)) return done();
    const store = contexts.get(request);
    let repeats = 0;
    if (level === 'info' && reply.statusCode < 400 && isRead(request.method)) {
      const caller = store?.fields.organization_id ?? request.ip;
      const admitted = repeated.admit(`${request.method} ${request.routeOptions.url} ${reply.statusCode} ${caller}`, now());
      if (admitted === null) return done();
      repeats = admitted;
    }
    access[level](
      {
        req: { id: String(request.id), method: request.method, url: redactUrl(request.url) },
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(elapsedMs * 10) / 10,
        ...store?.fields,
        ...(repeats > 0 ? { repeats } : {}),
      },
      reply.statusCode >= 500 ? 'request errored' : 'request completed',
    );
    done();
  });
  // The client went away before the answer: always worth a line (the status is what the route had set so far).
  fastify.addHook('onRequestAbort', (request, done) => {
    access.warn(
      { req: { id: String(request.id), method: request.method, url: redactUrl(request.url) }, ...contexts.get(request)?.fields },
      'request aborted by the client',
    );
    done();
  });
}
