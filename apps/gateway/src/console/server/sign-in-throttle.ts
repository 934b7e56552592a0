import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { rateLimitRefusals } from '@app/metrics';
import { ApiError } from '../../http/api-error';

/**
 * Failed sign-ins, counted per account (the e-mail as typed, lower-cased) and per client
 * address in a fixed window from the first failure. Past either limit, sign-in answers 429
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

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { signInAccountLimit, signInAddressLimit, signInWindowSeconds } = config.console;
    this.perAccount = new RateLimiterMemory({ points: signInAccountLimit, duration: signInWindowSeconds, keyPrefix: 'console-account' });
    this.perAddress = new RateLimiterMemory({ points: signInAddressLimit, duration: signInWindowSeconds, keyPrefix: 'console-address' });
  }

  /** Throws 429 when the account or the address used up its failures. */
  async check(email: string, address: string): Promise<void> {
    const [account, client] = await Promise.all([this.perAccount.get(email), this.perAddress.get(address)]);
    const waits = [
      account && account.consumedPoints >= this.perAccount.points ? account.msBeforeNext : 0,
      client && client.consumedPoints >= this.perAddress.points ? client.msBeforeNext : 0,
    ];
    const wait = Math.max(...waits);
    if (wait <= 0) return;
    rateLimitRefusals.inc({ limit: 'console_sign_in' });
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    throw new ApiError(
      429,
      'too_many_sign_in_attempts',
      'rate_limit',
      `Too many failed sign-ins. Wait ${seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`} and try again, or ask an owner of your organization to invite you again if you forgot your password.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }

  async recordFailure(email: string, address: string): Promise<void> {
    await Promise.all([this.perAccount.penalty(email, 1), this.perAddress.penalty(address, 1)]);
  }

  /** A good sign-in clears the account's failures (not the address's: one address may try many accounts). */
  async recordSuccess(email: string): Promise<void> {
    await this.perAccount.delete(email);
  }
}
