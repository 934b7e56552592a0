/**
 * RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`. Seconds are digits (a fraction is
 * taken too: some vendors send `1.5`); `-5`, `1e3`, `0x10` are unreadable and ignored, as `soon`
 * is (`Number()` would take them, and a negative delay made every retry at once). A date is one of
 * the three HTTP-date forms, all in GMT; V8 would read other texts, and the asctime form without
 * its zone, in the process's time zone.
 */
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`). */
const GMT_DATE = new RegExp(
  `^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} ${MONTH} \\d{4}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${MONTH}-\\d{2}) ${TIME} GMT$`,
);
/** The obsolete asctime form (`Sun Nov  6 08:49:37 1994`), which is in GMT without saying so. */
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/** A Retry-After header (seconds or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | null {
  if (typeof header !== 'string') return null;
  const value = header.trim();
  if (DELAY_SECONDS.test(value)) return Math.round(Number(value) * 1000);
  const at = GMT_DATE.test(value) ? Date.parse(value) : ASCTIME.test(value) ? Date.parse(`${value} GMT`) : NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
