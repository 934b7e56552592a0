import { utc } from '@date-fns/utc';
import { isValid, parseISO } from 'date-fns';
import fc from 'fast-check';
import { partsOfDate, type DateParts } from './date-pattern';
import { ISO_DATE_TIME, readIsoDate } from './iso-date';

/**
 * readIsoDate must read exactly what date-fns's parseISO read for a field without a pattern (the
 * reference the service used per value before): the texts the ISO 8601 gate let through, with
 * parseISO's validation, zone arithmetic and truncation, and nothing else.
 */

/** The gate as it was written before readIsoDate (transformations.ts, ISO_CALENDAR_DATE): the same language. */
const GATE_BEFORE =
  /^\d{4}(?:-\d{2}-\d{2}|\d{4})(?:[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?(?:Z|[+-](?:(?:0\d|1[0-3])(?::?[0-5]\d)?|14(?::?00)?))?)?$/;

const reference = (text: string): DateParts | null => {
  if (!GATE_BEFORE.test(text)) return null;
  const d = parseISO(text, { in: utc });
  return isValid(d) ? partsOfDate(d) : null;
};

const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
const year = fc.oneof(
  fc.constantFrom('0000', '0001', '0099', '0100', '1600', '1899', '1900', '1969', '1970', '2000', '2024', '2100', '9999'),
  digits(4, 9999),
);
const month = fc.oneof(fc.constantFrom('01', '02', '12'), digits(2, 19));
const day = fc.oneof(fc.constantFrom('01', '28', '29', '30', '31'), digits(2, 39));
const colon = fc.constantFrom(':', '', '');
/** Fractions that land near a whole second or millisecond, where floats and truncation decide. */
const fraction = fc.oneof(
  fc.constantFrom('', '', '.5', ',5', '.999', '.9995', '.99999', '.9999999999999', '.0001', '.000000001', '.1234567'),
  fc.tuple(fc.constantFrom('.', ','), fc.stringMatching(/^\d{1,14}$/)).map(([s, d]) => s + d),
);
const seconds = fc.tuple(colon, fc.oneof(fc.constantFrom('00', '59', '60'), digits(2, 69)), fraction).map((p) => p.join(''));
const minutes = fc
  .tuple(colon, fc.oneof(fc.constantFrom('00', '59'), digits(2, 69)), fc.option(seconds, { nil: '' }))
  .map((p) => p.join(''));
const zone = fc.oneof(
  fc.constantFrom('', '', 'Z', 'z', '+00:00', '-00:00', '+14:00', '-14:00', '+1400', '+14:01', '+13:59', '-0530', '+05', '+15:00'),
  fc
    .tuple(fc.constantFrom('+', '-'), digits(2, 19), fc.constantFrom(':', ''), fc.option(digits(2, 69), { nil: '' }))
    .map((p) => p.join('')),
);
const time = fc
  .tuple(
    fc.constantFrom('T', ' ', 't', 'T'),
    fc.oneof(fc.constantFrom('00', '23', '24'), digits(2, 29)),
    fc.option(minutes, { nil: '' }),
    zone,
  )
  .map((p) => p.join(''));
const isoLike = fc
  .tuple(year, fc.constantFrom('-', ''), month, day, fc.option(time, { nil: '' }))
  .map(([y, sep, m, d, t]) => `${y}${sep}${m}${sep}${d}${t}`);
/** A text near the grammar: one character dropped, doubled or changed. */
const nearIsoLike = fc
  .tuple(isoLike, fc.nat(), fc.constantFrom('drop', 'double', 'change'), fc.constantFrom(...'0123456789-:T Z+.,x'.split('')))
  .map(([text, at, how, c]) => {
    const i = at % Math.max(1, text.length);
    if (how === 'drop') return text.slice(0, i) + text.slice(i + 1);
    if (how === 'double') return text.slice(0, i) + text[i] + text.slice(i);
    return text.slice(0, i) + c + text.slice(i + 1);
  });

describe('readIsoDate against date-fns parseISO', () => {
  it('reads every text of the ISO grammar, valid and not, as parseISO does', () => {
    fc.assert(
      fc.property(isoLike, (text) => {
        expect(readIsoDate(text)).toEqual(reference(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('reads texts near the grammar as parseISO behind the gate does', () => {
    fc.assert(
      fc.property(nearIsoLike, (text) => {
        expect(readIsoDate(text)).toEqual(reference(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('lets through exactly the texts the gate before it did', () => {
    fc.assert(
      fc.property(fc.oneof(isoLike, nearIsoLike, fc.string({ maxLength: 30 })), (text) => {
        expect(ISO_DATE_TIME.test(text)).toBe(GATE_BEFORE.test(text));
      }),
      { numRuns: 20000 },
    );
  });

  it.each([
    ['2024-02-29', { year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0 }],
    ['2023-02-29', null],
    ['20240304T1030', { year: 2024, month: 3, day: 4, hour: 10, minute: 30, second: 0 }],
    // 24:00 is the next day's midnight; a zone moves the day.
    ['2024-12-31T24:00', { year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0 }],
    ['2024-03-04T01:30:00+02:00', { year: 2024, month: 3, day: 3, hour: 23, minute: 30, second: 0 }],
    ['2024-03-04 23:30-0530', { year: 2024, month: 3, day: 5, hour: 5, minute: 0, second: 0 }],
    // Before 1970 a fraction of a millisecond is truncated toward zero: to the next second.
    ['1960-01-01T00:00:00.9999', { year: 1960, month: 1, day: 1, hour: 0, minute: 0, second: 1 }],
    ['2000-01-01T00:00:00.9999', { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0 }],
    ['0000-02-29T12:00Z', { year: 0, month: 2, day: 29, hour: 12, minute: 0, second: 0 }],
    ['2024-03-04T10:00:60', null],
    ['2024-03-04T24:00:01', null],
    ['2024-03-04T10:00+14:01', null],
    ['2024-03', null],
  ])('reads %s', (text, parts) => {
    expect(readIsoDate(text)).toEqual(parts);
    expect(reference(text)).toEqual(parts);
  });
});
