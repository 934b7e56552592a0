import { inTimeZone } from '../../domain/src/testing/in-time-zone';
import { retryAfterMs } from './retry-after';

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['2', 2000],
    ['0', 0],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    [' 12 ', 12000],
    ['Thursday, 01-Jan-26 00:00:07 GMT', 7000],
    ['Thu Jan  1 00:00:09 2026', 9000],
    ['soon', null],
    // delay-seconds is digits alone: a negative value would retry at once, the others are not the header's grammar.
    ['-5', null],
    ['1.5', 1500],
    ['1e3', null],
    ['0x10', null],
    ['2026-01-01T00:00:05Z', null],
    ['Mon, foo 5', null],
    ['Thu, 01 Jan 2026 00:00:05', null],
    [undefined, null],
    ['', null],
  ])('%p waits %p ms', (header, ms) => expect(retryAfterMs(header, now)).toBe(ms));

  it('reads every date in GMT, whatever the time zone the process runs in (V8 reads an asctime date in local time)', () => {
    const inBerlin = inTimeZone(
      'Europe/Berlin',
      { retry: `${__dirname}/retry-after.ts` },
      "['Thu Jan  1 00:00:09 2026', 'Thu, 01 Jan 2026 00:00:05 GMT'].map((h) => m.retry.retryAfterMs(h, Date.parse('2026-01-01T00:00:00Z')))",
      null,
    );
    expect(inBerlin).toEqual([9000, 5000]);
  });
});
