import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { rateLimitRefusals } from '@app/metrics';
import { ApiError } from '../../http/api-error';

/** One password check under way: how it ended. */
export interface SignInAttempt {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
  /** The check could not be made (the account store failed): it counts for nothing. */
  abandoned(): Promise<void>;
}

/**
 * Failed sign-ins, counted per account (the e-mail as typed, lower-cased) and per client
 * address in a fixed window from the first attempt. Past either limit, sign-in answers 429
 * before the password is even checked, so a right password does not tell itself apart
 * either. The message is the same whether the e-mail has an account or not.
 *
 * Counts are kept per gateway process (rate-limiter-flexible's memory store): with N
 * replicas an attacker gets at most N times the limit (docs/decisions.md).
 */
@Injectable()
export class SignInThrottle {
  private readonly perAccount: RateLimiterMemory;
  private readonly perAddress: RateLimiterMemory;
  /** Attempts taken from each account's allowance whose password check has not ended yet. */
  private readonly checking = new Map<string, number>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { signInAccountLimit, signInAddressLimit, signInWindowSeconds } = config.console;
    this.perAccount = new RateLimiterMemory({ points: signInAccountLimit, duration: signInWindowSeconds, keyPrefix: 'console-account' });
    this.perAddress = new RateLimiterMemory({ points: signInAddressLimit, duration: signInWindowSeconds, keyPrefix: 'console-address' });
  }

  /**
   * Takes one failure from the account's and the address's allowance before the password is
   * checked, and throws 429 when either is used up (giving that attempt back: it was not
   * checked, so it tells nothing). Taken first, not counted after the check, so attempts sent
   * at once cannot all pass before the first failure is counted (a hash check takes ~100 ms).
   * The caller says how it ended: a failure keeps what was taken, a success gives it back.
   */
  async begin(email: string, address: string): Promise<SignInAttempt> {
    // Under way from before its place is taken: a success ending meanwhile must not forgive it.
    this.checking.set(email, (this.checking.get(email) ?? 0) + 1);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const left = this.checking.get(email)! - 1;
      if (left > 0) this.checking.set(email, left);
      else this.checking.delete(email);
    };
    const taken = await Promise.allSettled([this.perAccount.consume(email, 1), this.perAddress.consume(address, 1)]);
    const refused = taken.flatMap((t) => (t.status === 'rejected' ? [t.reason as unknown] : []));
    const giveBack = async () => {
      await Promise.all([this.perAccount.reward(email, 1), this.perAddress.reward(address, 1)]);
    };
    if (refused.length > 0) {
      end();
      await giveBack();
      // The limiter's own failure (a store error), not a refusal: passed on as it is.
      const store = refused.find((r): r is Error => r instanceof Error);
      if (store) throw store;
      throw this.tooMany(Math.max(...(refused as RateLimiterRes[]).map((r) => r.msBeforeNext)));
    }
    return {
      failed: async () => end(),
      // A good sign-in clears the account's failures, and gives the address back only this attempt (one address may try many accounts).
      succeeded: async () => {
        end();
        await Promise.all([this.clearEndedFailures(email), this.perAddress.reward(address, 1)]);
      },
      abandoned: async () => {
        end();
        await giveBack();
      },
    };
  }

  /**
   * The account's failures forgotten, but not the attempts still being checked: each was taken
   * from the allowance before its check, and a guess sent beside the owner's good sign-in must
   * still count when it fails (cleared, it would have been a free guess).
   */
  /** Forgets an account's failed sign-ins: its password was just reset, so the lock that sent them to the reset ends. */
  async forget(email: string): Promise<void> {
    await this.perAccount.delete(email);
  }

  private async clearEndedFailures(email: string): Promise<void> {
    const stillChecking = this.checking.get(email) ?? 0;
    if (stillChecking === 0) {
      await this.perAccount.delete(email);
      return;
    }
    const now = await this.perAccount.get(email);
    const ended = (now?.consumedPoints ?? 0) - stillChecking;
    if (ended > 0) await this.perAccount.reward(email, ended);
  }

  private tooMany(waitMs: number): ApiError {
    rateLimitRefusals.inc({ limit: 'console_sign_in' });
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new ApiError(
      429,
      'too_many_sign_in_attempts',
      'rate_limit',
      `Too many failed sign-ins. Wait ${seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`} and try again, or, if you forgot your password, ask an owner of your organization to invite you again: the link sets a new password (owners: ask your service operator, who resets an owner's password).`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
}
