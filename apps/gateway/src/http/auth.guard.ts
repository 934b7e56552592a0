import { type CanActivate, type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { rateLimitRefusals } from '@app/metrics';
import { addLogContext } from '@app/logging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual, createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory } from '@app/directory';
import { BoundedCache } from '@app/run-links';
import { ApiError, bearerChallenge } from './api-error';
import { bearerToken, hashApiKey } from './api-key';

export interface Caller {
  organizationId: string;
  apiKeyId: string;
}

/** `admitted`: counted against the key's rate limit already (by the HTTP edge, before the body was read). */
export type AuthenticatedRequest = FastifyRequest & { caller?: Caller; admitted?: boolean };

/** API keys whose hash is kept (authenticate). */
const KEY_HASHES_KEPT = 1_000;

/** How precisely a key's last use is kept. */
const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * Public API: a bearer API key names the organization; every key has its own rate
 * limit (a fixed window per minute), reported in X-RateLimit-* headers.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly limiter: RateLimiterMemory;

  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.limiter = new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: 60 });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.admit(context.switchToHttp().getRequest<AuthenticatedRequest>(), context.switchToHttp().getResponse<FastifyReply>());
    return true;
  }

  /**
   * What the guard does for each request: names its caller (on its log lines too), counts
   * it against the key's rate limit (X-RateLimit-* headers; 429 past it) and keeps the
   * key's last use. Also called by the routes answered without Nest's pipeline (direct-routes.ts).
   */
  async admit(request: AuthenticatedRequest, reply: FastifyReply): Promise<Caller> {
    // The HTTP edge authenticates the request and counts it before its body is read (http-edge.ts): a request its
    // body then refuses (malformed JSON, a wrong media type, too large) has counted too. Once per request.
    const caller = (request.caller ??= await this.authenticate(request.headers.authorization));
    if (request.admitted) return caller;
    request.admitted = true;
    addLogContext({ organization_id: caller.organizationId });
    await this.rateLimit(caller.apiKeyId, reply);
    this.recordUse(caller);
    return caller;
  }

  /**
   * Keeps the key's "last used" (shown in the console) to the minute: at most one write per
   * key a minute from this process, not awaited, and a failed write never fails the request.
   */
  private recordUse(caller: Caller): void {
    const now = Date.now();
    if (now - (this.lastRecordedUse.get(caller.apiKeyId) ?? 0) < LAST_USE_RESOLUTION_MS) return;
    this.lastRecordedUse.set(caller.apiKeyId, now);
    if (this.lastRecordedUse.size > 10_000) this.lastRecordedUse.clear(); // bounded: a forgotten key is written once more, no harm
    this.directory
      .touchApiKey(caller.organizationId, caller.apiKeyId, new Date(now).toISOString())
      .catch((err: Error) => this.logger.warn(`Could not record the use of API key ${caller.apiKeyId}: ${err.message}`));
  }

  private readonly lastRecordedUse = new Map<string, number>();
  private readonly logger = new Logger(ApiKeyGuard.name);

  /**
   * The caller an Authorization header names; 401 when it names none.
   *
   * Revocation takes effect at once, in every process: each request reads its key by hash
   * from the directory (`revoked_at IS NULL`), an indexed point read. What is cached is only
   * the SHA-256 of a presented key that matched a key once (a pure function of the key: a
   * cached hash can never let a revoked key in), so a polling client's key is not hashed on
   * every call. Keys that matched nothing are never kept, so guessing cannot fill the cache.
   */
  async authenticate(authorization: string | string[] | undefined): Promise<Caller> {
    const token = bearerToken(authorization);
    if (!token) throw ApiError.unauthenticated();
    const cached = this.keyHashes.get(token);
    const hash = cached ?? hashApiKey(token);
    const key = await this.directory.findApiKey(hash);
    if (!key) throw ApiError.unauthenticated('The API key is invalid or was revoked.', bearerChallenge('api', 'invalid_token'));
    if (cached === undefined) this.keyHashes.set(token, hash);
    return { organizationId: key.organization_id, apiKeyId: key.id };
  }

  /** Whether the header carries a key that matched one before (it may have been revoked since: only a lookup tells). */
  isKnownKey(authorization: string | string[] | undefined): boolean {
    const token = bearerToken(authorization);
    return token !== null && this.keyHashes.get(token) !== undefined;
  }

  /** Presented API key -> its SHA-256, for keys that matched (bounded: the oldest goes first). */
  private readonly keyHashes = new BoundedCache<string>(KEY_HASHES_KEPT);

  private async rateLimit(keyId: string, reply: FastifyReply): Promise<void> {
    const limit = this.config.rateLimitPerMinute;
    const headers = (res: RateLimiterRes) => ({
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
      'X-RateLimit-Reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
    });
    try {
      const res = await this.limiter.consume(keyId);
      void reply.headers(headers(res));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      rateLimitRefusals.inc({ limit: 'api_key' });
      throw ApiError.tooManyRequests({ ...headers(res), 'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))) });
    }
  }
}

/** Admin API: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer | null;
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.adminToken ? createHash('sha256').update(config.adminToken).digest() : null;
  }
  canActivate(context: ExecutionContext): boolean {
    this.authenticate(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization);
    return true;
  }

  /** Throws 401 unless the Authorization header carries the admin token (also called by the HTTP edge, before the body is read). */
  authenticate(authorization: string | string[] | undefined): void {
    const token = bearerToken(authorization);
    if (!this.expected) throw ApiError.unauthenticated('The admin API is disabled: ADMIN_TOKEN is not set.', bearerChallenge('admin'));
    // Hash both sides so the comparison is constant-time whatever the lengths.
    if (!token || !timingSafeEqual(createHash('sha256').update(token).digest(), this.expected)) {
      throw ApiError.unauthenticated(
        'A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>).',
        bearerChallenge('admin', token ? 'invalid_token' : undefined),
      );
    }
  }
}
