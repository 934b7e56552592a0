import { backoffDelayMs, LONGEST_TIMER_MS } from './retry-delay';

describe('the backoff before a retry', () => {
  it('doubles from half the base each time, with up to 20% jitter', () => {
    for (const [retry, least] of [
      [1, 1000],
      [2, 2000],
      [5, 16_000],
    ] as const) {
      const delay = backoffDelayMs(retry, 1000);
      expect(delay).toBeGreaterThanOrEqual(least);
      expect(delay).toBeLessThanOrEqual(least * 1.2);
    }
  });

  it('never passes what a timer can wait (a longer timer fires at once)', () => {
    expect(backoffDelayMs(19, 1000)).toBeLessThanOrEqual(LONGEST_TIMER_MS);
    expect(backoffDelayMs(19, 1000)).toBeGreaterThan(86_400_000);
    // 2^23 half-bases is past the cap before any jitter (at 22 it is 2,097,152,000 ms, 2.3% under it, and the jitter
    // added to that reached the cap only in most runs: the test failed about one run in eight).
    expect(backoffDelayMs(23, 1000)).toBe(LONGEST_TIMER_MS);
    expect(backoffDelayMs(3, 2_000_000_000)).toBe(LONGEST_TIMER_MS);
  });
});
