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
    ['1.5', null],
    ['1e3', null],
    ['0x10', null],
    ['2026-01-01T00:00:05Z', null],
    [undefined, null],
    ['', null],
  ])('%p waits %p ms', (header, ms) => expect(retryAfterMs(header, now)).toBe(ms));
});
