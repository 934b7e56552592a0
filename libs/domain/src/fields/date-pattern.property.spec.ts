import { format, isValid, parse } from 'date-fns';
import fc from 'fast-check';
import { compileDatePattern, partsOfDate, type DateParts } from './date-pattern';

/**
 * The compiled date patterns must read and write exactly as date-fns does (the reference
 * the service used per row before): random dates, random patterns from the compiled token
 * set, random strings.
 */
const REFERENCE = new Date(2000, 0, 1);

const dateFnsParse = (text: string, pattern: string): DateParts | null => {
  const d = parse(text, pattern, REFERENCE);
  return isValid(d) ? partsOfDate(d) : null;
};

const TOKENS: Record<string, string[]> = {
  y: ['y', 'yy', 'yyy', 'yyyy', 'yyyyy'],
  M: ['M', 'MM', 'MMM', 'MMMM', 'MMMMM'],
  d: ['d', 'dd', 'ddd'],
  H: ['H', 'HH'],
  m: ['m', 'mm'],
  s: ['s', 'ss'],
};
const SEPARATORS = ['/', '-', '.', ' ', ':', ', ', "'T'", "'at'", "''", '', " 'de' ", '_'];

/** A pattern: some of the units, in any order, each once, with separators between them. */
const patterns = fc
  .tuple(
    fc.shuffledSubarray(Object.keys(TOKENS), { minLength: 1 }),
    fc.array(fc.nat(100), { minLength: 6, maxLength: 6 }),
    fc.array(fc.constantFrom(...SEPARATORS), { minLength: 7, maxLength: 7 }),
  )
  .map(([units, picks, seps]) => {
    let p = seps[6] === '' ? '' : seps[6];
    units.forEach((u, i) => {
      p += TOKENS[u][picks[i] % TOKENS[u].length] + (i < units.length - 1 ? seps[i] : '');
    });
    return p;
  });

const dates = fc.date({ min: new Date(1000, 0, 1), max: new Date(9999, 11, 31, 23, 59, 59), noInvalidDate: true });

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
  ])('%s: compiles', (pattern) => {
    expect(compileDatePattern(pattern)).not.toBeNull();
  });

  it('formats every date as date-fns formats it', () => {
    fc.assert(
      fc.property(patterns, dates, (pattern, date) => {
        const compiled = compileDatePattern(pattern)!;
        expect({ pattern, text: compiled.format(partsOfDate(date)) }).toEqual({ pattern, text: format(date, pattern) });
      }),
      { numRuns: 3000 },
    );
  });

  it('reads back what date-fns wrote, as date-fns reads it', () => {
    fc.assert(
      fc.property(patterns, dates, (pattern, date) => {
        const text = format(date, pattern);
        expect({ pattern, text, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
          pattern,
          text,
          parts: dateFnsParse(text, pattern),
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts and refuses arbitrary text exactly as date-fns does', () => {
    const chars = fc.constantFrom(...'0123456789012345678901234567890123456789/-.: ,TtaJjanfebMmarAprmayjunjulaugsepoctnovdec\t'.split(''));
    fc.assert(
      fc.property(patterns, fc.array(chars, { maxLength: 24 }), (pattern, cs) => {
        const text = cs.join('');
        expect({ pattern, text, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
          pattern,
          text,
          parts: dateFnsParse(text, pattern),
        });
      }),
      { numRuns: 5000 },
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
    ];
    for (const [text, pattern] of cases) {
      expect({ text, pattern, parts: compileDatePattern(pattern)!.parse(text) }).toEqual({
        text,
        pattern,
        parts: dateFnsParse(text, pattern),
      });
    }
  });

  it('leaves patterns outside the compiled set to date-fns', () => {
    for (const pattern of ['h:mm a', 'do MMMM', 'yyyy-MM-dd HH:mm xxx', 'EEEE', 'yyyy-yy', 'PP', "yyyy-MM-dd'T'HH:mm:ss.SSS"]) {
      expect({ pattern, compiled: compileDatePattern(pattern) }).toEqual({ pattern, compiled: null });
    }
  });
});
