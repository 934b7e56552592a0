import { RateLimiterMemory } from 'rate-limiter-flexible';
import { rateLimitRefusals } from '@app/metrics';
import type { AppConfig } from '@app/config';
import { ApiError } from './api-error';

/**
 * Failed authentication, throttled per client address: a wrong admin token, an unknown
 * API key, a bad review-link or file-URL signature each count one failure. After
 * AUTH_FAILURE_LIMIT failures in a window of AUTH_FAILURE_WINDOW_SECONDS (a fixed window
 * from the first failure), every credentialed request from that address answers 429
 * `too_many_failed_attempts` with Retry-After until the window ends, before its
 * credential is even looked at (so guessing stops, and costs nothing).
 *
 * Use: `const throttle = authFailureThrottle(config)`; `await throttle.refusal(request.ip)`
 * (an ApiError to answer with, or null) before checking a credential, and
 * `await throttle.recordFailure(request.ip)` when the check fails. One instance per
 * configuration, so every route of a service shares it.
 */
export class AuthFailureThrottle {
  private readonly limiter: RateLimiterMemory;

  constructor(
    private readonly limit: number,
    windowSeconds: number,
  ) {
    this.limiter = new RateLimiterMemory({ points: Math.max(1, limit), duration: windowSeconds, keyPrefix: 'auth-failures' });
  }

  /** 429 when `address` used up its failures in the current window; null when it may try. */
  async refusal(address: string): Promise<ApiError | null> {
    if (this.limit <= 0) return null;
    const res = await this.limiter.get(address);
    if (!res || res.consumedPoints < this.limit) return null;
    rateLimitRefusals.inc({ limit: 'failed_auth' });
    return ApiError.tooManyFailedAttempts(Math.ceil(res.msBeforeNext / 1000));
  }

  async recordFailure(address: string): Promise<void> {
    if (this.limit <= 0) return;
    await this.limiter.penalty(address, 1);
  }
}

const throttles = new WeakMap<AppConfig, AuthFailureThrottle>();

/** The throttle of a service (one per configuration object). */
export function authFailureThrottle(config: AppConfig): AuthFailureThrottle {
  let throttle = throttles.get(config);
  if (!throttle) {
    throttle = new AuthFailureThrottle(config.http.authFailureLimit, config.http.authFailureWindowSeconds);
    throttles.set(config, throttle);
  }
  return throttle;
}
