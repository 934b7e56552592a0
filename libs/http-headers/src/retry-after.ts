/**
 * RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`, `delay-seconds = 1*DIGIT`. Anything
 * else (`-5`, `1.5`, `1e3`, `0x10`) is unreadable and ignored, as `soon` is: `Number()` would take
 * them, and a negative delay would make every retry at once.
 */
const DELAY_SECONDS = /^\d+$/;
/** The three forms of HTTP-date each begin with the day's name (`Sun, 06 Nov 1994…`, `Sunday, 06-Nov-94…`, `Sun Nov  6…`). */
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/** A Retry-After header (seconds or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | null {
  if (typeof header !== 'string') return null;
  const value = header.trim();
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
