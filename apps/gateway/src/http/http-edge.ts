import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { MIMEType } from 'node:util';
import { Logger } from '@nestjs/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LOCAL_BLOB_ROUTE } from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import { ApiError, bearerChallenge } from './api-error';
import { authorizationHeaderCount, bearerToken } from './api-key';
import type { AuthenticatedRequest, Caller } from './auth.guard';
import { authFailureThrottle } from './auth-throttle';
import { errorBody, sendApiError, statusError } from './error-envelope.filter';
import { hasEmptyParam } from './empty-param';
import { clientRequestId } from './request-id';
import { trustProxyFunction } from './trust-proxy';

/** The connections a server still has open. */
const openConnections = (server: Server): Promise<number> =>
  new Promise((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));

/** The checks the edge runs before a body is read, taken from the application once it exists. */
export interface EdgeDeps {
  config: AppConfig;
  /** The API-key guard's lookup (401 when the header names no key). */
  authenticateApiKey(authorization: string | string[] | undefined): Promise<Caller>;
  /** The API-key guard's admission of an authenticated request: its rate limit (X-RateLimit-* headers; 429 past it). */
  admitApiKey(request: AuthenticatedRequest, reply: FastifyReply): Promise<unknown>;
  /** Whether the header carries a key that matched one before (its check is then not a guess: no place, no refusal past the limit). */
  isKnownApiKey(authorization: string | string[] | undefined): boolean;
  /** The admin guard's check (401 unless the header carries ADMIN_TOKEN). */
  authenticateAdmin(authorization: string | string[] | undefined): void;
  isValidReviewSignature(runId: string, signature: unknown): boolean;
}

/** `/review/:runId` itself shows an HTML page even for a bad link; its JSON calls live below it. */
const REVIEW_PAGE = '/review/:runId';
const FILES = `${LOCAL_BLOB_ROUTE}/`;
/** Routes behind a credential: their requests pass the failed-authentication throttle first. */
const CREDENTIAL_ROUTES = ['/v1/', '/admin/v1/', REVIEW_PAGE, FILES];
/** Operator endpoints that, with an admin listener, are served there only (`/healthz` stays on both: it tells nothing). */
const OPERATOR_ROUTES = new Set(['/readyz', '/metrics']);
const ON_BOTH_LISTENERS = new Set(['/healthz']);
/** What the admin listener serves alone when there is one: the admin API and the operator endpoints. */
const adminOnly = (route: string): boolean => route.startsWith('/admin/') || OPERATOR_ROUTES.has(route);
const MIN_CHECK_INTERVAL_MS = 250;
const MAX_CHECK_INTERVAL_MS = 30_000;

/**
 * Content codings that change a body's bytes. Other values (`identity`, an empty one, a charset such as `utf-8` that some
 * clients wrongly send there) leave the body as it is, and pass as they always did.
 */
const BODY_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br', 'zstd', 'compress', 'x-compress', 'aws-chunked']);
const compressedBody = (header: string | undefined): boolean =>
  header !== undefined && header.split(',').some((coding) => BODY_CODINGS.has(coding.trim().toLowerCase()));

/**
 * The charset a JSON body declares other than UTF-8 (RFC 8259: JSON between systems is UTF-8), or null: none declared,
 * UTF-8, or not JSON (Fastify answers other media types itself). Read with Node's own MIME parser.
 */
function foreignJsonCharset(header: string | undefined): string | null {
  if (header === undefined) return null;
  let type: MIMEType;
  try {
    type = new MIMEType(header);
  } catch {
    return null; // an unreadable Content-Type is Fastify's to refuse (415)
  }
  const charset = type.params.get('charset');
  if (type.essence !== 'application/json' || charset === null) return null;
  return ['utf-8', 'utf8'].includes(charset.toLowerCase()) ? null : charset;
}

const declaresBody = (raw: IncomingMessage): boolean =>
  raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
/** Fastify reads the body of every method but GET and HEAD. */
const hasBody = (raw: IncomingMessage): boolean => raw.method !== 'GET' && raw.method !== 'HEAD' && declaresBody(raw);

/**
 * The HTTP edge (docs/security.md, "HTTP edge"): what happens to a request before any
 * controller sees it.
 *
 * - Our request id (always a UUID; a safe caller X-Request-Id is echoed as
 *   X-Client-Request-Id) and our error envelope, also for what Fastify and Node answer
 *   themselves: malformed URLs, header overflow, header timeouts, shutdown.
 * - Authentication of /v1 (API key), /admin/v1 (ADMIN_TOKEN) and the review link's JSON
 *   calls (signature) in `onRequest`, before the body is read: a request without a valid
 *   credential costs a header check and never has its body buffered. An API request is
 *   counted against its key's rate limit there too, once (the Nest guard and the direct
 *   routes skip a request already `admitted`); its body may still be refused after.
 * - Failed authentication is throttled per client address (auth-throttle.ts).
 * - Bounded resources: connections per listener, a headers deadline, a deadline for JSON
 *   bodies, an idle-only rule for uploads to the signed /files URLs, the keep-alive
 *   timeout, and a cap on JSON body bytes in flight (503 past it).
 * - Security headers on every answer: CSP `frame-ancestors 'none'`, X-Frame-Options DENY,
 *   and HSTS when PUBLIC_BASE_URL is https.
 * - Optionally, the admin API on a listener of its own (ADMIN_HOST/ADMIN_PORT), with the
 *   operator endpoints /readyz and /metrics (there only; /healthz answers on both).
 *
 * Fastify's options are fixed when the adapter is made, before the configuration is known:
 * `fastifyOptions()` hands it functions that read the configuration `install()` brings.
 */
export class HttpEdge {
  private deps: EdgeDeps | null = null;
  private trust: (address: string, hop: number) => boolean = () => false;
  private hsts = false;
  private closing = false;
  /** The admin listener, when there is one: a stop drains it with the public one. */
  private adminServer: Server | null = null;
  /** Settled once the admin listener has closed and its last connection ended (from the stop on). */
  private adminClosed: Promise<void> | null = null;
  private jsonBytesInFlight = 0;

  /** Requests that came in on the admin listener (when there is one). */
  private readonly adminRequests = new WeakSet<IncomingMessage>();

  fastifyOptions() {
    return {
      genReqId: () => randomUUID(),
      trustProxy: (address: string, hop: number) => this.trust(address, hop),
      // Our own 503 in the envelope (onRequest below), not Fastify's.
      return503OnClosing: false,
      frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => this.frameworkError(error, request, reply),
      clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => this.clientError(error, socket),
      // An HTTP/1.1 request without a Host header is refused by onRequest, in the envelope and with a request id;
      // Node's own check answered a bare 400 before any of ours ran.
      http: { requireHostHeader: false },
      // Fastify answers a path parameter over 100 characters 414 before any hook, so an id of 101 went
      // unauthenticated and unanswered by its route (the spec: 401 without a credential, else 404). Node's
      // header limit (16 KiB, the request line included: 431) bounds a URL; so does this, past it.
      routerOptions: { maxParamLength: 16 * 1024 },
    };
  }

  install(fastify: FastifyInstance, deps: EdgeDeps): void {
    this.deps = deps;
    this.trust = trustProxyFunction(deps.config.http.trustProxy);
    this.hsts = deps.config.publicBaseUrl.startsWith('https://');
    this.applyLimits(fastify.server);
    fastify.addHook('onRequest', (request, reply) => this.onRequest(request, reply));
    // Synchronous on purpose: the answer of a refusing onRequest must be sent before Fastify decides whether to read the body.
    fastify.addHook('onSend', (request, reply, payload, done) => {
      this.securityHeaders(reply);
      this.closeIfBodyUnread(request, reply);
      // An answer given while the service stops ends its connection: the client's next request goes to another instance.
      if (this.closing) void reply.header('Connection', 'close');
      done(null, payload);
    });
    fastify.addHook('preClose', (done) => {
      this.closing = true;
      this.drain(fastify.server);
      done();
    });
    if (deps.config.http.adminListener) this.serveAdminListener(fastify, deps.config.http.adminListener);
  }

  private get config(): AppConfig {
    if (!this.deps) throw new Error('HttpEdge.install() was not called');
    return this.deps.config;
  }

  private applyLimits(server: Server): void {
    const http = this.config.http;
    server.headersTimeout = http.headersTimeoutMs;
    // Node's whole-request deadline would cut long uploads: bodies have their own rules (below).
    server.requestTimeout = 0;
    server.keepAliveTimeout = http.keepAliveTimeoutMs;
    // How often Node looks for connections past the headers deadline (read when the server starts listening).
    (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
      MAX_CHECK_INTERVAL_MS,
      Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(http.headersTimeoutMs / 4)),
    );
    if (http.maxConnections > 0) server.maxConnections = http.maxConnections;
  }

  /** Returns the reply when it answered (a refusal), so Fastify goes no further, body reading included. */
  private async onRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    // Before any wait: body bytes that arrive while the credential is checked count towards an upload's least rate.
    const readAtStart = request.raw.socket.bytesRead;
    void reply.header('X-Request-Id', String(request.id));
    const client = clientRequestId(request.headers);
    if (client) void reply.header('X-Client-Request-Id', client);
    if (this.closing) return this.refuse(request, reply, ApiError.serviceUnavailable('The service is shutting down; retry shortly.'));
    // RFC 9112: a server responds 400 to an HTTP/1.1 request without a Host header.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
      return this.refuse(
        request,
        reply,
        new ApiError(400, 'bad_request', 'invalid_request', 'The request has no Host header, which HTTP/1.1 requires.'),
      );
    // The matched route's pattern, not the raw URL: percent-encoding cannot dodge a check.
    // A route with an empty path parameter (`/v1/schemas/`) is no route, as Nest's adapter has it.
    const route = request.is404 || hasEmptyParam(request.params) ? undefined : request.routeOptions.url;
    const onAdminListener = this.adminRequests.has(request.raw);
    const separateAdmin = this.config.http.adminListener !== null;
    // Unknown routes answer 404 here, without reading a body; with its own listener, the admin API and the
    // operator endpoints (/readyz, /metrics) exist only there, and the public API only on the public one.
    if (route === undefined || (separateAdmin && !ON_BOTH_LISTENERS.has(route) && adminOnly(route) !== onAdminListener)) {
      return this.refuse(request, reply, statusError(404));
    }
    const refusal = (await this.authenticate(route, request)) ?? (await this.admit(request, reply));
    if (refusal) return this.refuse(request, reply, refusal);
    return this.limitBody(route, request, reply, readAtStart);
  }

  /**
   * An API request counts against its key's rate limit here, before its body is read: one refused for its body
   * (400, 413, 415, 422) has cost the service too, and a key over its limit is refused without reading one.
   * Null when the request may go on; else the 429 to answer with.
   */
  private async admit(request: AuthenticatedRequest, reply: FastifyReply): Promise<ApiError | null> {
    if (!request.caller) return null;
    try {
      await this.deps!.admitApiKey(request, reply);
      return null;
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
  }

  /** Null when the request may go on; else the error to answer with. */
  private async authenticate(route: string, request: AuthenticatedRequest): Promise<ApiError | null> {
    if (!CREDENTIAL_ROUTES.some((prefix) => route.startsWith(prefix))) return null;
    const throttle = authFailureThrottle(this.config);
    // An API key never seen to match is looked up holding a place (a remote directory answers later, and
    // guesses sent at once would all be looked up before the first failure counted); the checks that answer
    // at once (the admin token, signatures) only look at the count. A key seen to match skips the throttle:
    // it is looked up (revoked: refused, and counted) even from an address past the limit, so one client's
    // wrong key behind a shared address (NAT, an untrusted proxy) does not lock out the others' working keys.
    // Its 256 random bits are no guess; the admin token (perhaps human-chosen) and signatures stay locked.
    const unknownKey = () => !this.deps!.isKnownApiKey(request.headers.authorization);
    const place = !route.startsWith('/v1/')
      ? await throttle.refusal(request.ip)
      : unknownKey()
        ? await throttle.place(request.ip, unknownKey)
        : null;
    if (place instanceof ApiError) return place;
    let failure: { error: ApiError | null; counts: boolean } | null = null;
    try {
      failure = await this.verify(route, request);
    } finally {
      await (place ? place.release(failure?.counts === true) : failure?.counts ? throttle.recordFailure(request.ip) : undefined);
    }
    return failure?.error ?? null;
  }

  /**
   * Null when the credential is good (or, on /files, checked by the route, which counts its
   * own failures: files/local-file-routes.ts). Else what to answer (null: let the route
   * answer) and whether the failure was a guess (a credential was presented).
   */
  private async verify(route: string, request: AuthenticatedRequest): Promise<{ error: ApiError | null; counts: boolean } | null> {
    const deps = this.deps!;
    const { authorization } = request.headers;
    const bearerRoute = route.startsWith('/v1/') || route.startsWith('/admin/v1/');
    if (bearerRoute && authorization !== undefined && authorizationHeaderCount(request.raw.rawHeaders) > 1)
      // Not a guess (a client or proxy repeating a good header): not counted against the address.
      return {
        error: ApiError.unauthenticated(
          'Send one Authorization header; this request has more than one.',
          bearerChallenge(route.startsWith('/v1/') ? 'api' : 'admin', 'invalid_request'),
        ),
        counts: false,
      };
    try {
      if (route.startsWith('/v1/')) request.caller = await deps.authenticateApiKey(authorization);
      else if (route.startsWith('/admin/v1/')) deps.authenticateAdmin(authorization);
      else if (route.startsWith(REVIEW_PAGE)) {
        const { runId } = request.params as { runId: string };
        const { signature } = request.query as { signature?: unknown };
        if (deps.isValidReviewSignature(runId, signature)) return null;
        // The page itself answers a bad link with its HTML "link invalid" page (review.controller.ts).
        return {
          error: route === REVIEW_PAGE ? null : ApiError.forbidden('invalid_signature', 'This review link is invalid.'),
          counts: true,
        };
      }
      return null;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { error: err, counts: bearerToken(authorization) !== null };
    }
  }

  /**
   * JSON bodies: a share of the bytes-in-flight cap and a deadline to arrive. Uploads to
   * the signed /files URLs stream to disk: no deadline, only a longest pause.
   */
  private limitBody(route: string, request: FastifyRequest, reply: FastifyReply, readAtStart: number): FastifyReply | undefined {
    const raw = request.raw;
    if (!hasBody(raw)) return;
    // A body is read as it is sent: a compressed one would be parsed, or stored, as its compressed bytes (RFC 9110: 415).
    if (compressedBody(raw.headers['content-encoding']))
      return this.refuse(
        request,
        reply,
        new ApiError(415, 'unsupported_media_type', 'invalid_request', 'Send the body as it is, without a Content-Encoding.', undefined, {
          'Accept-Encoding': 'identity',
        }),
      );
    const charset = route.startsWith(FILES) ? null : foreignJsonCharset(raw.headers['content-type']);
    if (charset !== null)
      return this.refuse(
        request,
        reply,
        new ApiError(
          415,
          'unsupported_media_type',
          'invalid_request',
          `JSON bodies are read as UTF-8; this one says charset=${charset.slice(0, 40)}. Send it as UTF-8, with charset=utf-8 or none.`,
        ),
      );
    const http = this.config.http;
    if (route.startsWith(FILES)) {
      raw.socket.setTimeout(http.uploadIdleTimeoutMs); // Node closes the connection after that long without a byte
      raw.once('end', () => {
        if (!reply.raw.writableFinished) raw.socket.setTimeout(0);
      });
      this.holdToMinimumRate(raw, reply, readAtStart);
      return;
    }
    const declared = Number(raw.headers['content-length']);
    const max = this.config.maxJsonBodyBytes;
    if (declared > max) return; // Fastify answers 413 without reading it
    const bytes = Number.isNaN(declared) ? max : declared;
    if (this.jsonBytesInFlight > 0 && this.jsonBytesInFlight + bytes > http.maxJsonBytesInFlight) {
      return this.refuse(request, reply, ApiError.serviceUnavailable('The service is busy; retry after the time in Retry-After.', 1));
    }
    this.jsonBytesInFlight += bytes;
    const timer = setTimeout(() => this.bodyTimedOut(request, reply), http.bodyTimeoutMs);
    raw.once('end', () => clearTimeout(timer));
    reply.raw.once('close', () => {
      clearTimeout(timer);
      this.jsonBytesInFlight -= bytes;
    });
  }

  /**
   * An upload whose body advances, but slower than HTTP_UPLOAD_MIN_BYTES_PER_SECOND over a whole
   * HTTP_UPLOAD_RATE_WINDOW_MS, has its connection closed, as a stalled one is: a client sending a
   * byte just within every idle timeout would otherwise hold the connection, and its run's upload,
   * for as long as it likes. Counted on the socket (bytesRead), so nothing reads the body here.
   */
  private holdToMinimumRate(raw: IncomingMessage, reply: FastifyReply, readAtStart: number): void {
    const { uploadMinBytesPerSecond: perSecond, uploadRateWindowMs: windowMs } = this.config.http;
    if (perSecond === 0) return;
    const socket = raw.socket;
    const least = (perSecond * windowMs) / 1000;
    let readBefore = readAtStart;
    const check = setInterval(() => {
      const read = socket.bytesRead;
      if (read - readBefore < least) {
        clearInterval(check);
        socket.destroy();
        return;
      }
      readBefore = read;
    }, windowMs).unref();
    const stop = () => clearInterval(check);
    raw.once('end', stop);
    raw.once('close', stop);
    reply.raw.once('close', stop);
  }

  private bodyTimedOut(request: FastifyRequest, reply: FastifyReply): void {
    if (request.raw.complete) return;
    if (reply.sent) {
      request.raw.socket.destroy();
      return;
    }
    void this.refuse(request, reply, statusError(408));
  }

  /**
   * An answer sent before the request's body arrived whole (a route refusing an upload, a 403
   * on a bad /files signature, any early answer) closes the connection after it. Otherwise
   * Node would go on reading the rest of the body on a keep-alive connection, under the
   * keep-alive timeout it arms after each answer (72 s by default, and reset by every byte a
   * slow client trickles) instead of our deadlines: a stalled body would hold the connection
   * for longer than a minute.
   */
  private closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
    if (declaresBody(request.raw) && !request.raw.complete) void reply.header('connection', 'close');
  }

  /** Answers in the envelope; a body not yet read is not read at all: the connection closes after the answer. */
  private refuse(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
    if (declaresBody(request.raw) && !request.raw.complete) void reply.header('connection', 'close');
    return sendApiError(reply, err);
  }

  private securityHeaders(reply: FastifyReply): void {
    const csp = reply.getHeader('content-security-policy');
    if (typeof csp !== 'string' || csp === '') void reply.header('content-security-policy', "frame-ancestors 'none'");
    else if (!/(^|;)\s*frame-ancestors\s/i.test(csp)) void reply.header('content-security-policy', `${csp}; frame-ancestors 'none'`);
    void reply.header('x-frame-options', 'DENY');
    if (this.hsts) void reply.header('strict-transport-security', 'max-age=31536000');
    // Answers carry keys, secrets, signed links and session tokens: no browser or proxy keeps a copy,
    // unless the answer says otherwise (the pages' assets are cached for ever under their hash).
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
  }

  /** Errors the router raises before any hook: a malformed percent-encoded URL (400), a parameter past maxParamLength (414). */
  private frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    const status = error.statusCode ?? 500;
    const err =
      status >= 500
        ? ApiError.internal()
        : error.code === 'FST_ERR_BAD_URL'
          ? new ApiError(400, 'bad_request', 'invalid_request', 'The request URL is malformed (invalid percent-encoding).')
          : statusError(status);
    void reply.header('X-Request-Id', String(request.id));
    const client = clientRequestId(request.headers);
    if (client) void reply.header('X-Client-Request-Id', client);
    this.securityHeaders(reply);
    void this.refuse(request, reply, err);
  }

  /** What Node's HTTP parser refuses (bad syntax, header overflow, headers timeout): answered on the socket, then closed. */
  private clientError(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (!socket.writable || inProgress) {
      socket.destroy();
      return;
    }
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const id = randomUUID();
    const body = JSON.stringify(errorBody(statusError(status), id));
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      `X-Request-Id: ${id}`,
      "Content-Security-Policy: frame-ancestors 'none'",
      'X-Frame-Options: DENY',
      ...(this.hsts ? ['Strict-Transport-Security: max-age=31536000'] : []),
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  }

  /**
   * The admin API on its own address: a second Node server whose requests go through the
   * same Fastify instance (routes, hooks, guards), marked so that onRequest serves only
   * /admin/... there and never on the public listener.
   */
  private serveAdminListener(fastify: FastifyInstance, listener: { host: string; port: number }): void {
    // Without Node's Host check, as on the public listener: onRequest answers it in the envelope.
    const server = createServer({ requireHostHeader: false }, (req, res) => {
      this.adminRequests.add(req);
      fastify.routing(req, res);
    });
    this.applyLimits(server);
    server.on('clientError', (error: Error & { code?: string }, socket: Socket) => this.clientError(error, socket));
    fastify.addHook('onReady', async () => {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listener.port, listener.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    });
    this.adminServer = server;
    fastify.addHook('onClose', async () => {
      // Stopped taking connections when the stop began (drain): closed once its requests in flight are answered.
      await (this.adminClosed ?? new Promise<void>((resolve) => server.close(() => resolve())));
    });
  }

  /**
   * A stop: no new connection is taken and idle keep-alive ones are closed at once (Fastify closes the public listener,
   * and the admin one is closed here), while the requests in flight get HTTP_DRAIN_MS to finish: an upload or a long poll
   * under way is answered instead of cut. Past that, every connection left is closed, so a client that never finishes
   * cannot hold the process. Fastify answers each request that arrives meanwhile on a kept connection with our 503.
   */
  private drain(publicServer: Server): void {
    const servers = this.adminServer ? [publicServer, this.adminServer] : [publicServer];
    const admin = this.adminServer;
    if (admin?.listening) this.adminClosed = new Promise<void>((resolve) => admin.close(() => resolve()));
    for (const server of servers) server.closeIdleConnections();
    void Promise.all(servers.map(openConnections)).then((counts) => {
      const open = counts.reduce((a, b) => a + b, 0);
      new Logger('Gateway').log(
        open > 0
          ? `Stopping: no new connections; ${open} open connection(s) get up to ${this.config.http.drainMs / 1000} s to finish their requests`
          : 'Stopping: no new connections, none open',
      );
    });
    const drainMs = this.config.http.drainMs;
    const deadline = setTimeout(() => {
      // The requests these connections carried are logged as aborted by their clients next: it was this stop.
      void Promise.all(servers.map(openConnections)).then((counts) =>
        new Logger('Gateway').warn(
          `Stopping: ${drainMs / 1000} s passed; closing ${counts.reduce((a, b) => a + b, 0)} connection(s) whose requests did not finish`,
        ),
      );
      for (const server of servers) server.closeAllConnections();
    }, drainMs);
    deadline.unref();
    // Off once every listener has closed: the admin one may still be answering after the public one has.
    const closed = (server: Server) => new Promise<void>((resolve) => server.once('close', () => resolve()));
    void Promise.all([closed(publicServer), this.adminClosed]).then(() => clearTimeout(deadline));
  }
}
