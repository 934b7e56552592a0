import { retryAfterMs } from './retry-after';

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['2', 2000],
    ['0', 0],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['soon', null],
    [undefined, null],
    ['', null],
  ])('%p waits %p ms', (header, ms) => expect(retryAfterMs(header, now)).toBe(ms));
});
