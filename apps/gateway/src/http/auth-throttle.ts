import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimitRefusals } from '@app/metrics';
import type { AppConfig } from '@app/config';
import { ApiError } from './api-error';

/** A place taken for one credential check (AuthFailureThrottle.place): released with how the check ended. */
export interface CheckPlace {
  /** `failed`: the check was a failed guess, counted as recordFailure counts it. */
  release(failed: boolean): Promise<void>;
}

/**
 * Failed authentication, throttled per client address: a wrong admin token, an unknown
 * API key, a bad review-link or file-URL signature each count one failure. After
 * AUTH_FAILURE_LIMIT failures in a window of AUTH_FAILURE_WINDOW_SECONDS (a fixed window
 * from the first failure), every credentialed request from that address answers 429
 * `too_many_failed_attempts` with Retry-After until the window ends, before its
 * credential is even looked at (so guessing stops, and costs nothing). One exception, the
 * caller's (http-edge.ts): an API key this process has seen match is still looked up
 * (its 256 random bits are no guess; docs/decisions.md, "A key that matched, past the limit").
 *
 * Use: `const throttle = authFailureThrottle(config)`; `await throttle.refusal(request.ip)`
 * (an ApiError to answer with, or null) before checking a credential, and
 * `await throttle.recordFailure(request.ip)` when the check fails. One instance per
 * configuration, so every route of a service shares it.
 */
export class AuthFailureThrottle {
  private readonly limiter: RateLimiterMemory;
  /** Checks under way per address that hold a place (place()): each may still become a failure. */
  private readonly checking = new Map<string, number>();
  /** Checks waiting for a place, per address, first come first served: one is woken per place freed. */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly limit: number,
    windowSeconds: number,
  ) {
    this.limiter = new RateLimiterMemory({ points: Math.max(1, limit), duration: windowSeconds, keyPrefix: 'auth-failures' });
  }

  /** 429 when `address` used up its failures in the current window; null when it may try. */
  async refusal(address: string): Promise<ApiError | null> {
    if (this.limit <= 0) return null;
    return this.refusalOf(await this.limiter.get(address));
  }

  private refusalOf(res: RateLimiterRes | null): ApiError | null {
    if (!res || res.consumedPoints < this.limit) return null;
    rateLimitRefusals.inc({ limit: 'failed_auth' });
    return ApiError.tooManyFailedAttempts(Math.ceil(res.msBeforeNext / 1000));
  }

  async recordFailure(address: string): Promise<void> {
    if (this.limit <= 0) return;
    await this.limiter.penalty(address, 1);
  }

  /**
   * For a check whose answer comes later (an API key looked up in a remote directory): checks sent
   * at once would otherwise all pass refusal() before the first failure is counted. Each check
   * under way holds a place, and an address has as many places as failures it has left: a check
   * beyond them waits for one to be freed (a legitimate burst is delayed, not refused), then is
   * refused once the failures are used up. Answers the 429, the place (which must be released),
   * or null when `stillAGuess` turned false while it waited (the key matched meanwhile): no place,
   * and no refusal either, as for a key that had matched before (the caller skips the throttle then).
   */
  async place(address: string, stillAGuess: () => boolean = () => true): Promise<ApiError | CheckPlace | null> {
    if (this.limit <= 0) return { release: () => Promise.resolve() };
    for (let woken = false; ; woken = true) {
      // One read of the count a pass, then no wait until the place is taken or the check is in the line: with two
      // reads, a holder's failure counted between them could wake the line before this check joined it, for ever.
      const res = await this.limiter.get(address);
      // A key that matched meanwhile goes ahead without a place, past the limit too: it is no guess.
      const refused = stillAGuess() ? this.refusalOf(res) : null;
      // A waiter that leaves without its place lets the next one look (a refusal reaches them all, one by one).
      if (refused || !stillAGuess()) {
        if (woken) this.wakeNext(address);
        return refused;
      }
      const used = res?.consumedPoints ?? 0;
      // Read and taken with no wait between: two checks cannot both take the last place.
      const checking = this.checking.get(address) ?? 0;
      if (used + checking < this.limit) {
        this.checking.set(address, checking + 1);
        // More places free (the window ended while it waited): the next waiter may take one too.
        if (woken && used + checking + 1 < this.limit) this.wakeNext(address);
        return this.heldPlace(address);
      }
      // No place: the place freed went to a failure. First in the line again, for the next one freed.
      await new Promise<void>((wake) => {
        const line = this.waiting.get(address) ?? [];
        if (woken) line.unshift(wake);
        else line.push(wake);
        this.waiting.set(address, line);
      });
    }
  }

  private heldPlace(address: string): CheckPlace {
    let released = false;
    return {
      release: async (failed) => {
        if (released) return;
        released = true;
        try {
          // The failure first, so the check woken below sees it counted.
          if (failed) await this.recordFailure(address);
        } finally {
          const left = this.checking.get(address)! - 1;
          if (left > 0) this.checking.set(address, left);
          else this.checking.delete(address);
          this.wakeNext(address);
        }
      },
    };
  }

  private wakeNext(address: string): void {
    const line = this.waiting.get(address);
    const next = line?.shift();
    if (line?.length === 0) this.waiting.delete(address);
    next?.();
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
