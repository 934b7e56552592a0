import { LONGEST_TIMER_MS } from '@app/http-headers';
import { vendorRetryDelayMs } from './vendor-http';

describe("the wait before a vendor call's retry", () => {
  const ai = { retryBaseMs: 1000, maxRetryAfterMs: 30_000 };

  it("takes the vendor's Retry-After when it asks for no more than AI_MAX_RETRY_AFTER_MS", () => {
    expect(vendorRetryDelayMs(1, '20', ai)).toBe(20_000);
    expect(vendorRetryDelayMs(3, '0', ai)).toBe(0);
  });

  it('falls back to the backoff when the vendor asks for longer (it waited as long as asked: a day for 86400)', () => {
    const delay = vendorRetryDelayMs(2, '86400', ai);
    expect(delay).toBeGreaterThanOrEqual(2000);
    expect(delay).toBeLessThanOrEqual(2400);
    const date = new Date(Date.now() + 3_600_000).toUTCString();
    expect(vendorRetryDelayMs(1, date, ai)).toBeLessThanOrEqual(1200);
  });

  it('backs off without a readable Retry-After, and never past what a timer can wait', () => {
    expect(vendorRetryDelayMs(1, undefined, ai)).toBeGreaterThanOrEqual(1000);
    expect(vendorRetryDelayMs(1, 'soon', ai)).toBeLessThanOrEqual(1200);
    expect(vendorRetryDelayMs(19, undefined, { retryBaseMs: 60_000, maxRetryAfterMs: 0 })).toBe(LONGEST_TIMER_MS);
  });
});
