import { UTCDate, utc } from '@date-fns/utc';
import { format, isValid, parse } from 'date-fns';
import fc from 'fast-check';
import { compileDatePattern, partsOfDate, type DateParts } from './date-pattern';

/**
 * The compiled date patterns must read and write exactly as date-fns does (the reference
 * the service used per row before): random dates, random patterns from the compiled token
 * set, random strings.
 */
const REFERENCE = new UTCDate(2000, 0, 1);

/** As transformations.ts reads a date outside the compiled set: in UTC, from 2000-01-01. */
const dateFnsParse = (text: string, pattern: string): DateParts | null => {
  const d = parse(text, pattern, REFERENCE, { in: utc });
  return isValid(d) ? partsOfDate(d) : null;
};

/** As transformations.ts writes a date (a UTCDate): its UTC time. */
const dateFnsFormat = (date: Date, pattern: string): string => format(new UTCDate(date.getTime()), pattern);

const TOKENS: Record<string, string[]> = {
  y: ['y', 'yy', 'yyy', 'yyyy', 'yyyyy'],
  M: ['M', 'MM', 'MMM', 'MMMM', 'MMMMM'],
  d: ['d', 'dd', 'ddd', 'do'],
  E: ['E', 'EE', 'EEE', 'EEEE', 'EEEEE', 'EEEEEE'],
  H: ['H', 'HH'],
  h: ['h', 'hh'],
  a: ['a', 'aa', 'aaa', 'aaaa', 'aaaaa'],
  m: ['m', 'mm'],
  s: ['s', 'ss'],
  S: ['S', 'SS', 'SSS', 'SSSS'],
  X: ['X', 'XX', 'XXX', 'XXXX', 'XXXXX'],
  x: ['x', 'xx', 'xxx', 'xxxx', 'xxxxx'],
};
const SEPARATORS = ['/', '-', '.', ' ', ':', ', ', "'T'", "'at'", "''", '', " 'de' ", '_'];

const UNITS = Object.keys(TOKENS);

/**
 * Units the compiled set takes together: a weekday with a day of the month (without one, date-fns
 * moves the date to the weekday: left to it), H without h or a, and X without x (date-fns refuses those).
 */
const compiledTogether = (units: string[]): boolean =>
  !(units.includes('E') && !units.includes('d')) &&
  !(units.includes('H') && (units.includes('h') || units.includes('a'))) &&
  !(units.includes('X') && units.includes('x'));

/** A pattern: some of the units, in any order, each once, with separators between them. */
const patterns = fc
  .tuple(
    fc.shuffledSubarray(UNITS, { minLength: 1 }).filter(compiledTogether),
    fc.array(fc.nat(100), { minLength: UNITS.length, maxLength: UNITS.length }),
    fc.array(fc.constantFrom(...SEPARATORS), { minLength: UNITS.length + 1, maxLength: UNITS.length + 1 }),
  )
  .map(([units, picks, seps]) => {
    let p = seps[UNITS.length];
    units.forEach((u, i) => {
      p += TOKENS[u][picks[i] % TOKENS[u].length] + (i < units.length - 1 ? seps[i] : '');
    });
    return p;
  });

/** Weekday and day-period words, whole and in part, as the random texts' pieces. */
const WORDS = [
  ...['Mon', 'Monday', 'tue', 'Tuesday', 'Wed', 'thursday', 'Fri', 'SAT', 'Sunday', 'Su', 'Tu', 'Th', 'T', 'S', 'w', 'Mo'],
  ...['AM', 'PM', 'am', 'pm', 'a.m.', 'p.m.', 'A.M', 'p m', 'a', 'p', 'A', 'mi', 'n', 'noon', 'midnight', 'Noon'],
  ...['in the morning', 'in the afternoon', 'in the evening', 'at night', 'at morning', 'in the night', 'at evening'],
  ...['1st', '2nd', '3rd', '4th', '11th', '22ND', '1St', 'th', 'st', 'nd', 'rd', 'ſt', '0001st', '31st', '32nd'],
  ...['Z', 'z', '+02:00', '-05:30', '+0100', '-1200', '+05', '-00', '+14:00', '+99:99', '-23:59:59', '+013015', '+01:30:', '+1'],
];

const dates = fc.date({ min: new Date(1000, 0, 1), max: new Date(9999, 11, 31, 23, 59, 59), noInvalidDate: true });
/** Years before 1 too: an ISO day 0000-01-01 moved by a zone is one (date-fns writes year 0 as 1, -1 as 2). */
const anyYearDates = fc.date({ min: new Date(Date.UTC(-2000, 0, 1)), max: new Date(9999, 11, 31, 23, 59, 59), noInvalidDate: true });

describe('compiled date patterns agree with date-fns', () => {
  it.each([
    'dd/MM/yyyy',
    'MM/dd/yy',
    'd.M.yyyy',
    'd MMM yyyy',
    "yyyy-MM-dd'T'HH:mm",
    'yyyyMMdd',
    'MMMM d, yyyy',
    "dd 'de' MMMM 'de' yyyy",
    "HH:mm:ss 'o''clock'",
    'EEE, dd MMM yyyy',
    'EEE, dd MMM yyyy HH:mm',
    'dd MMM yyyy EEE',
    'EEEE d MMMM yyyy',
    'MM/dd/yyyy hh:mm a',
    'h:mm a',
    'h:mm aaaa',
    'hh:mm:ss',
    "yyyy-MM-dd'T'HH:mm:ssXXX",
    'yyyy-MM-dd HH:mm xx',
    "yyyy-MM-dd'T'HH:mm:ss.SSS",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
    'MMMM do, yyyy',
  ])('%s: compiles', (pattern) => {
    expect(compileDatePattern(pattern)).not.toBeNull();
  });

  it('formats every date as date-fns formats it', () => {
    fc.assert(
      fc.property(patterns, anyYearDates, (pattern, date) => {
        const compiled = compileDatePattern(pattern)!;
        // A fraction of a second is read, not kept: such a pattern is written by date-fns, from the date itself.
        expect(compiled.format === null).toBe(pattern.includes('S'));
        if (compiled.format)
          expect({ pattern, text: compiled.format(partsOfDate(date)) }).toEqual({ pattern, text: dateFnsFormat(date, pattern) });
      }),
      { numRuns: 6000 },
    );
  });

  it('reads back what date-fns wrote, as date-fns reads it', () => {
    fc.assert(
      fc.property(patterns, dates, (pattern, date) => {
        const text = dateFnsFormat(date, pattern);
        expect({ pattern, text, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
          pattern,
          text,
          parts: dateFnsParse(text, pattern),
        });
      }),
      { numRuns: 6000 },
    );
  });

  it('accepts and refuses arbitrary text exactly as date-fns does', () => {
    const chars = fc.constantFrom(
      ...'0123456789012345678901234567890123456789/-.: ,TtaJjanfebMmarAprmayjunjulaugsepoctnovdecpPhnoi\t+Z'.split(''),
    );
    const pieces = fc.oneof({ arbitrary: chars, weight: 4 }, { arbitrary: fc.constantFrom(...WORDS), weight: 1 });
    fc.assert(
      fc.property(patterns, fc.array(pieces, { maxLength: 24 }), (pattern, cs) => {
        const text = cs.join('');
        expect({ pattern, text, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
          pattern,
          text,
          parts: dateFnsParse(text, pattern),
        });
      }),
      { numRuns: 12000 },
    );
  });

  it('reads written dates with a piece changed (a word, a character, a cut) as date-fns does', () => {
    const piece = fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom(...'0123456789 :,./apmPMTs+-Z'.split('')), fc.constant(''));
    const edit = fc.tuple(fc.nat(), fc.nat(4), piece);
    fc.assert(
      fc.property(patterns, dates, fc.array(edit, { minLength: 1, maxLength: 2 }), (pattern, date, edits) => {
        let text = dateFnsFormat(date, pattern);
        for (const [at, cut, put] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + put + text.slice(i + cut);
        }
        expect({ pattern, text, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
          pattern,
          text,
          parts: dateFnsParse(text, pattern),
        });
      }),
      { numRuns: 12000 },
    );
  });

  it('reads zone offsets of every form and width as date-fns does, moving the time to UTC', () => {
    const two = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
    const offset = fc.oneof(
      fc.constantFrom('Z', 'z', '', '+', '+1', '+14:00', '-00:00', 'GMT', 'Z+01:00'),
      fc
        .tuple(
          fc.constantFrom('+', '-'),
          two,
          fc.constantFrom('', ':'),
          fc.option(two, { nil: '' }),
          fc.constantFrom('', ':'),
          fc.option(two, { nil: '' }),
        )
        .map((p) => p.join('')),
    );
    const zoneToken = fc.constantFrom(...TOKENS.X, ...TOKENS.x);
    const wallPattern = fc.constantFrom(
      "yyyy-MM-dd'T'HH:mm:ss",
      'dd/MM/yyyy HH:mm ',
      'yyyyMMddHHmm',
      'd MMM yyyy h:mm a ',
      "yyyy-MM-dd'T'HH:mm:ss'Z'",
    );
    const after = fc.constantFrom('', ' ', ' UTC', 'x');
    fc.assert(
      fc.property(wallPattern, zoneToken, dates, offset, after, (wall, zone, date, written, tail) => {
        const pattern = `${wall}${zone}`;
        const text = `${dateFnsFormat(date, wall)}${written}${tail}`;
        expect({ pattern, text, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
          pattern,
          text,
          parts: dateFnsParse(text, pattern),
        });
      }),
      { numRuns: 12000 },
    );
    const at = (pattern: string, text: string) => compileDatePattern(pattern)!.parse(text);
    expect(at("yyyy-MM-dd'T'HH:mm:ssXXX", '2026-01-01T01:30:00+02:00')).toEqual({
      year: 2025,
      month: 12,
      day: 31,
      hour: 23,
      minute: 30,
      second: 0,
    });
    expect(at('yyyy-MM-dd HH:mm xx', '2026-12-31 23:00 -0130')).toEqual({ year: 2027, month: 1, day: 1, hour: 0, minute: 30, second: 0 });
    expect(compileDatePattern("yyyy-MM-dd'T'HH:mm:ssXXX")!.format!({ year: 2026, month: 12, day: 7, hour: 9, minute: 5, second: 0 })).toBe(
      '2026-12-07T09:05:00Z',
    );
  });

  it('agrees on near-misses of real values: out-of-range days and months, short years, trailing text', () => {
    const cases: [string, string][] = [
      ['31/02/2024', 'dd/MM/yyyy'],
      ['29/02/2023', 'dd/MM/yyyy'],
      ['29/02/2024', 'dd/MM/yyyy'],
      ['1/2/24', 'dd/MM/yyyy'],
      ['12/31/99', 'MM/dd/yy'],
      ['12/31/49', 'MM/dd/yy'],
      ['12/31/50', 'MM/dd/yy'],
      ['13/01/2020', 'MM/dd/yyyy'],
      ['00/01/2020', 'MM/dd/yyyy'],
      ['5.3.2021 ', 'd.M.yyyy'],
      ['5.3.2021x', 'd.M.yyyy'],
      ['7 Sept 2020', 'd MMM yyyy'],
      ['7 sep 2020', 'd MMM yyyy'],
      ['7 J 2020', 'd MMM yyyy'],
      ['2020-05-06T24:00', "yyyy-MM-dd'T'HH:mm"],
      ['2020-05-06T23:60', "yyyy-MM-dd'T'HH:mm"],
      ['0000-01-01', 'yyyy-MM-dd'],
      ['', 'yyyy'],
      ['Mon, 07 Dec 2026', 'EEE, dd MMM yyyy'],
      ['Tue, 07 Dec 2026', 'EEE, dd MMM yyyy'],
      ['Monday, 07 Dec 2026', 'EEE, dd MMM yyyy'],
      ['Monday, 07 Dec 2026', 'EEEE, dd MMM yyyy'],
      ['07 Dec 2026 Sat', 'dd MMM yyyy EEE'],
      ['Mon, 07 Dec 2026 13:05', 'EEE, dd MMM yyyy HH:mm'],
      ['12/07/2026 01:05 PM', 'MM/dd/yyyy hh:mm a'],
      ['12/07/2026 12:05 AM', 'MM/dd/yyyy hh:mm a'],
      ['12/07/2026 12:05 PM', 'MM/dd/yyyy hh:mm a'],
      ['12/07/2026 13:05 PM', 'MM/dd/yyyy hh:mm a'],
      ['12/07/2026 00:05 AM', 'MM/dd/yyyy hh:mm a'],
      ['12/07/2026 1:05 p.m.', 'MM/dd/yyyy h:mm a'],
      ['12/07/2026 01:05 in the evening', 'MM/dd/yyyy hh:mm aaaa'],
      ['12/07/2026 01:05 noon', 'MM/dd/yyyy hh:mm aaaaa'],
      ['07 Dec 2026 in the evening', 'dd MMM yyyy aaaa'],
      ['07 Dec 2026 in the morning', 'dd MMM yyyy a'],
      ['07 Dec 2026 in the afternoon', 'dd MMM yyyy aaa'],
      ['07 Dec 2026 at night', 'dd MMM yyyy aa'],
      ['07 Dec 2026 at evening', 'dd MMM yyyy aaaa'],
      ['07 Dec 2026 midnight', 'dd MMM yyyy a'],
      ['07 Dec 2026 noon', 'dd MMM yyyy aaaa'],
      ['07 Dec 2026 n', 'dd MMM yyyy aaaaa'],
      ['07 Dec 2026 mi', 'dd MMM yyyy aaaaa'],
      ['07 Dec 2026 P M', 'dd MMM yyyy a'],
      ['07 Dec 2026 p.m', 'dd MMM yyyy a'],
      ['March 1st, 2024', 'MMMM do, yyyy'],
      ['March 2st, 2024', 'MMMM do, yyyy'],
      ['March 31st, 2024', 'MMMM do, yyyy'],
      ['April 31st, 2024', 'MMMM do, yyyy'],
      ['March 03RD, 2024', 'MMMM do, yyyy'],
      ['March 3, 2024', 'MMMM do, yyyy'],
      ['March 3 rd, 2024', 'MMMM do, yyyy'],
      ['March 3rd 2024', 'MMMM do yyyy'],
      ['March 3rdx 2024', 'MMMM do yyyy'],
      ['Tue, March 1st, 2024', 'EEE, MMMM do, yyyy'],
    ];
    for (const [text, pattern] of cases) {
      expect({ text, pattern, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
        text,
        pattern,
        parts: dateFnsParse(text, pattern),
      });
    }
  });

  it('reads a weekday and a 12-hour clock as date-fns does: the day of the month wins over a wrong weekday', () => {
    const at = (pattern: string, text: string) => compileDatePattern(pattern)!.parse(text);
    const dec7 = { year: 2026, month: 12, day: 7, hour: 0, minute: 0, second: 0 };
    expect(at('EEE, dd MMM yyyy', 'Mon, 07 Dec 2026')).toEqual(dec7);
    expect(at('EEE, dd MMM yyyy', 'Tue, 07 Dec 2026')).toEqual(dec7);
    expect(at('EEE, dd MMM yyyy', 'Monday, 07 Dec 2026')).toBeNull();
    expect(at('MM/dd/yyyy hh:mm a', '12/07/2026 01:05 PM')).toEqual({ ...dec7, hour: 13, minute: 5 });
    expect(at('MM/dd/yyyy hh:mm a', '12/07/2026 12:05 AM')).toEqual({ ...dec7, hour: 0, minute: 5 });
    expect(at('MM/dd/yyyy hh:mm a', '12/07/2026 13:05 PM')).toBeNull();
    expect(compileDatePattern('EEE, dd MMM yyyy HH:mm')!.format!({ ...dec7, hour: 13, minute: 5 })).toBe('Mon, 07 Dec 2026 13:05');
    expect(compileDatePattern('MM/dd/yyyy hh:mm a')!.format!({ ...dec7, hour: 0, minute: 5 })).toBe('12/07/2026 12:05 AM');
  });

  it('leaves patterns outside the compiled set to date-fns', () => {
    const left = [
      'HH:mm a',
      'HH hh',
      'Do MMMM',
      'yyyy-MM-dd HH:mm xxxxxx',
      'HH:mm X x',
      'EEEE',
      'EEE MMM yyyy',
      'EEEEEEE, dd MMM',
      'h:mm aaaaaa',
    ];
    for (const pattern of [...left, 'yyyy-yy', 'PP', 'ho a', 'Eo dd', 'Mo yyyy', 'yo', 'do do']) {
      expect({ pattern, compiled: compileDatePattern(pattern) }).toEqual({ pattern, compiled: null });
    }
  });
});
