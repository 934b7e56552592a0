/**
 * Date patterns (Unicode tokens, as date-fns reads them) compiled once into a parser and a
 * formatter that work on calendar parts, so a million rows cost a million cheap scans
 * instead of a million runs of date-fns's general parser (about 20 µs each).
 *
 * The compiled set: years (y, yy, yyy, yyyy, ...), months (M, MM, MMM, MMMM, MMMMM, in
 * English as date-fns's default locale), days of the month (d, dd, ..., and do: 1st, 2nd), weekday names (E
 * to EEEEEE, in English) in a pattern that has a day of the month, hours 0-23 (H, HH),
 * hours 1-12 (h, hh) and day periods (a to aaaaa: AM, pm, p.m., p, noon, in the evening...)
 * in a pattern without H, minutes (m, mm), seconds (s, ss), fractions of a second (S, SS, ...: read,
 * not kept, so such a pattern is compiled for reading only), ISO zone offsets (X to XXXXX, x to
 * xxxxx, not both), quoted text and any other non-letter character. A pattern with any other
 * token (week years, zone names, ordinals other than the day's `do`...)
 * is not compiled: `compileDatePattern` returns null and callers use date-fns for it. So is a
 * weekday without a day of the month: date-fns then moves the date to that weekday (its
 * setter runs at the day of the month's priority, which otherwise wins and ignores the
 * weekday, whatever the order of the tokens), and H with h or a, which date-fns refuses.
 *
 * Every rule below mirrors date-fns 4 (`parse` with reference date 2000-01-01, `format`);
 * date-pattern.property.spec.ts checks the two agree on random dates, random patterns from
 * the compiled set and random strings.
 */

import { dayAfter, dayBefore, daysInMonth, digitsValue } from './digits';

export interface DateParts {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface CompiledDatePattern {
  /** The parts written in `text`, or null where date-fns's parse gives an invalid date. */
  parse(text: string): DateParts | null;
  /**
   * The parts written in the pattern; null for a pattern with a fraction of a second, which the parts do not carry
   * (date-fns writes the milliseconds of the date it was given: use it for such a pattern).
   */
  format: ((parts: DateParts) => string) | null;
}

type Field = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

type Step =
  | { kind: 'literal'; text: string }
  | { kind: 'number'; field: Field; token: string; match: (s: string, at: number) => number }
  | { kind: 'ordinal-day' }
  | { kind: 'hour12'; token: string; match: (s: string, at: number) => number }
  | { kind: 'month-name'; token: string }
  | { kind: 'weekday'; token: string; matchers: RegExp[] }
  | { kind: 'day-period'; token: string; matchers: RegExp[] }
  | { kind: 'zone'; token: string; matcher: RegExp; written: string }
  | { kind: 'fraction'; token: string; match: (s: string, at: number) => number };

/** date-fns's tokenizer (formattingTokensRegExp): runs of one letter, quoted text, single characters. */
const TOKENS = /[yYQqMLwIdDecihHKkms]o|(\w)\1*|''|'(''|[^'])+('|$)|./g;
const LATIN_LETTER = /[a-zA-Z]/;

/** The reference date's year: two-digit years land within 50 years of it, as in date-fns. */
const REFERENCE_YEAR = 2000;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
// date-fns's English month matchers (locale en-US `match.month`), anchored and linear.
const MONTH_WIDE = /^(january|february|march|april|may|june|july|august|september|october|november|december)/i;
const MONTH_ABBREVIATED = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
const MONTH_NARROW = /^[jfmasond]/i;
const MONTH_PARSE_ANY = [/^ja/i, /^f/i, /^mar/i, /^ap/i, /^may/i, /^jun/i, /^jul/i, /^au/i, /^s/i, /^o/i, /^n/i, /^d/i];
const MONTH_PARSE_NARROW = [/^j/i, /^f/i, /^m/i, /^a/i, /^m/i, /^j/i, /^j/i, /^a/i, /^s/i, /^o/i, /^n/i, /^d/i];

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
// date-fns's English weekday matchers (locale en-US `match.day`). Only how much they read matters:
// with a day of the month (compiled only so), date-fns keeps that day and ignores the weekday.
const WEEKDAY_WIDE = /^(sunday|monday|tuesday|wednesday|thursday|friday|saturday)/i;
const WEEKDAY_ABBREVIATED = /^(sun|mon|tue|wed|thu|fri|sat)/i;
const WEEKDAY_SHORT = /^(su|mo|tu|we|th|fr|sa)/i;
const WEEKDAY_NARROW = /^[smtwf]/i;
/** What DayParser tries for each width, in its order: E-EEE, EEEE, EEEEE, EEEEEE. */
const WEEKDAY_MATCHERS: Record<number, RegExp[]> = {
  1: [WEEKDAY_ABBREVIATED, WEEKDAY_SHORT, WEEKDAY_NARROW],
  2: [WEEKDAY_ABBREVIATED, WEEKDAY_SHORT, WEEKDAY_NARROW],
  3: [WEEKDAY_ABBREVIATED, WEEKDAY_SHORT, WEEKDAY_NARROW],
  4: [WEEKDAY_WIDE, WEEKDAY_ABBREVIATED, WEEKDAY_SHORT, WEEKDAY_NARROW],
  5: [WEEKDAY_NARROW],
  6: [WEEKDAY_SHORT, WEEKDAY_NARROW],
};

// date-fns's English day-period matchers (locale en-US `match.dayPeriod`): its `any` width serves
// the abbreviated and wide ones, which en-US does not have.
const DAY_PERIOD_ANY = /^([ap]\.?\s?m\.?|midnight|noon|(in the|at) (morning|afternoon|evening|night))/i;
const DAY_PERIOD_NARROW = /^(a|p|mi|n|(in the|at) (morning|afternoon|evening|night))/i;
/** What AMPMParser tries for each width, in its order: a-aaa and aaaa (any, narrow), aaaaa (narrow). */
const DAY_PERIOD_MATCHERS: Record<number, RegExp[]> = {
  1: [DAY_PERIOD_ANY, DAY_PERIOD_NARROW],
  2: [DAY_PERIOD_ANY, DAY_PERIOD_NARROW],
  3: [DAY_PERIOD_ANY, DAY_PERIOD_NARROW],
  4: [DAY_PERIOD_ANY, DAY_PERIOD_NARROW],
  5: [DAY_PERIOD_NARROW],
};
/**
 * The hour a matched day period sets (date-fns's parse patterns, first that tests true, then
 * dayPeriodEnumToHours): "at night" and "at evening" start with an a, so they are am (0) as in
 * date-fns; a narrow "n" is none of them, which date-fns also sets as 0.
 */
const DAY_PERIOD_HOURS: [RegExp, number][] = [
  [/^a/i, 0],
  [/^p/i, 12],
  [/^mi/i, 0],
  [/^no/i, 12],
  [/morning/i, 4],
  [/afternoon/i, 12],
  [/evening/i, 17],
  [/night/i, 0],
];
const DAY_PERIOD_NAMES: Record<number, [am: string, pm: string]> = {
  1: ['AM', 'PM'],
  2: ['AM', 'PM'],
  3: ['am', 'pm'],
  4: ['a.m.', 'p.m.'],
  5: ['a', 'p'],
};

/*
 * Zone offsets, as date-fns's ISOTimezoneWithZParser (X) and ISOTimezoneParser (x) read them: its
 * timezonePatterns by width. Their `|Z` is not anchored, so a Z anywhere in the rest of the text
 * matches, and then one character is read, whatever it is: mirrored as it is.
 */
const ZONE_MATCHERS: Record<number, RegExp> = {
  1: /^([+-])(\d{2})(\d{2})?|Z/,
  2: /^([+-])(\d{2})(\d{2})|Z/,
  3: /^([+-])(\d{2}):(\d{2})|Z/,
  4: /^([+-])(\d{2})(\d{2})((\d{2}))?|Z/,
  5: /^([+-])(\d{2}):(\d{2})(:(\d{2}))?|Z/,
};
/** What date-fns writes for a UTC date (every date here is one): X always Z, x the zero offset in its width's form. */
const ZONE_WRITTEN: Record<string, string> = { x: '+00', xx: '+0000', xxx: '+00:00', xxxx: '+0000', xxxxx: '+00:00' };

/** The zone's offset in milliseconds and the characters it took at `at` (parseTimezonePattern), or null. */
function matchZone(text: string, at: number, matcher: RegExp): [offset: number, length: number] | null {
  const m = matcher.exec(text.slice(at));
  if (m === null) return null;
  if (m[0] === 'Z') return [0, 1];
  const sign = m[1] === '+' ? 1 : -1;
  const seconds = +m[2] * 3600 + (m[3] ? +m[3] : 0) * 60 + (m[5] ? +m[5] : 0);
  return [sign * seconds * 1000, m[0].length];
}

/**
 * The day an English ordinal at `at` names and how many characters it takes, as date-fns's en-US
 * `match.ordinalNumber` reads it: /^(\d+)(th|st|nd|rd)?/i, any suffix with any number. Null without a digit.
 */
function matchOrdinal(text: string, at: number): [value: number, length: number] | null {
  let end = at;
  while (isDigit(text, end)) end++;
  if (end === at) return null;
  const value = parseInt(text.slice(at, end), 10);
  return [value, ORDINAL_SUFFIXES.has(text.slice(end, end + 2).toLowerCase()) ? end + 2 - at : end - at];
}
const ORDINAL_SUFFIXES = new Set(['th', 'st', 'nd', 'rd']);

/** en-US's ordinalNumber: 1st, 2nd, 3rd, 4th ... 11th, 12th, 13th ... 21st. */
function ordinal(n: number): string {
  const rem100 = n % 100;
  if (rem100 > 20 || rem100 < 10) {
    if (rem100 % 10 === 1) return `${n}st`;
    if (rem100 % 10 === 2) return `${n}nd`;
    if (rem100 % 10 === 3) return `${n}rd`;
  }
  return `${n}th`;
}

/** Length of what the first matcher that matches at `at` reads, or 0. */
function matchedLength(text: string, at: number, matchers: RegExp[]): number {
  const rest = text.slice(at, at + 20);
  for (const matcher of matchers) {
    const m = matcher.exec(rest);
    if (m) return m[0].length;
  }
  return 0;
}

const isDigit = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};

/** Length of the run of 1..max digits at `at` (0 when there is none): date-fns's parseNDigits. */
const upToDigits =
  (max: number) =>
  (s: string, at: number): number => {
    let n = 0;
    while (n < max && isDigit(s, at + n)) n++;
    return n;
  };

/** `^(1[0-2]|0?\d)`: date-fns's month pattern for `M` (and its hour12h for `h`). */
function monthDigits(s: string, at: number): number {
  if (s[at] === '1' && s[at + 1] >= '0' && s[at + 1] <= '2') return 2;
  if (s[at] === '0' && isDigit(s, at + 1)) return 2;
  return isDigit(s, at) ? 1 : 0;
}

/** `^(3[0-1]|[0-2]?\d)`: date-fns's day-of-month pattern for `d`. */
function dayDigits(s: string, at: number): number {
  const c = s[at];
  if (c === '3' && (s[at + 1] === '0' || s[at + 1] === '1')) return 2;
  if (c >= '0' && c <= '2' && isDigit(s, at + 1)) return 2;
  return isDigit(s, at) ? 1 : 0;
}

/** `^(2[0-3]|[0-1]?\d)`: date-fns's pattern for `H`. */
function hourDigits(s: string, at: number): number {
  const c = s[at];
  if (c === '2' && s[at + 1] >= '0' && s[at + 1] <= '3') return 2;
  if ((c === '0' || c === '1') && isDigit(s, at + 1)) return 2;
  return isDigit(s, at) ? 1 : 0;
}

/** `^[0-5]?\d`: date-fns's pattern for `m` and `s`. */
function sexagesimalDigits(s: string, at: number): number {
  if (s[at] >= '0' && s[at] <= '5' && isDigit(s, at + 1)) return 2;
  return isDigit(s, at) ? 1 : 0;
}

const FIELD_OF: Record<string, Field> = { y: 'year', M: 'month', d: 'day', H: 'hour', m: 'minute', s: 'second' };

function numberStep(letter: string, token: string): Step {
  const field = FIELD_OF[letter];
  const n = token.length;
  let match = upToDigits(n);
  if (letter === 'y') match = upToDigits(n === 1 ? 4 : n);
  else if (n === 1 && letter === 'M') match = monthDigits;
  else if (n === 1 && letter === 'd') match = dayDigits;
  else if (n === 1 && letter === 'H') match = hourDigits;
  else if (n === 1 && (letter === 'm' || letter === 's')) match = sexagesimalDigits;
  return { kind: 'number', field, token, match };
}

/** The letters compiled: numbers (FIELD_OF), h, weekday names, day periods, zone offsets and fractions of a second. */
const COMPILED_LETTERS = new Set([...Object.keys(FIELD_OF), 'h', 'E', 'a', 'X', 'x', 'S']);

/** The pattern as steps, or null when a token is outside the compiled set. */
function stepsOf(pattern: string): Step[] | null {
  const steps: Step[] = [];
  const seen = new Set<string>();
  for (const token of pattern.match(TOKENS) ?? []) {
    const letter = token[0];
    if (token === "''") {
      steps.push({ kind: 'literal', text: "'" });
    } else if (letter === "'") {
      steps.push({ kind: 'literal', text: (/^'([^]*?)'?$/.exec(token)?.[1] ?? '').replace(/''/g, "'") });
    } else if (LATIN_LETTER.test(letter)) {
      // date-fns refuses a unit given twice; and every letter outside the set goes to date-fns.
      // Of the ordinals, only the day of the month ("1st") is compiled; the others are left to date-fns.
      if (!COMPILED_LETTERS.has(letter) || (token.endsWith('o') && token !== 'do') || seen.has(letter)) return null;
      seen.add(letter);
      if (token === 'do') {
        steps.push({ kind: 'ordinal-day' });
        continue;
      }
      if (letter === 'E') {
        // EEEEEEE and longer read as EEEE in date-fns: left to it, as nobody writes them.
        if (!WEEKDAY_MATCHERS[token.length]) return null;
        steps.push({ kind: 'weekday', token, matchers: WEEKDAY_MATCHERS[token.length] });
      } else if (letter === 'a') {
        if (!DAY_PERIOD_MATCHERS[token.length]) return null;
        steps.push({ kind: 'day-period', token, matchers: DAY_PERIOD_MATCHERS[token.length] });
      } else if (letter === 'X' || letter === 'x') {
        // Six letters and more read and write as three in date-fns: left to it, as nobody writes them.
        if (!ZONE_MATCHERS[token.length]) return null;
        steps.push({ kind: 'zone', token, matcher: ZONE_MATCHERS[token.length], written: letter === 'X' ? 'Z' : ZONE_WRITTEN[token] });
      } else if (letter === 'S') {
        // FractionOfSecondParser: 1 to n digits. Its milliseconds (never 1,000 or more) move no part.
        steps.push({ kind: 'fraction', token, match: upToDigits(token.length) });
      } else if (letter === 'h') {
        steps.push({ kind: 'hour12', token, match: token.length === 1 ? monthDigits : upToDigits(token.length) });
      } else {
        steps.push(letter === 'M' && token.length >= 3 ? { kind: 'month-name', token } : numberStep(letter, token));
      }
    } else {
      steps.push({ kind: 'literal', text: token });
    }
  }
  // A weekday moves the date only without a day of the month (DayParser and DateParser share priority
  // 90, and date-fns keeps one setter a priority: the day of the month's, of higher subPriority).
  if (seen.has('E') && !seen.has('d')) return null;
  // date-fns refuses H with h or with a (incompatibleTokens): it throws.
  if (seen.has('H') && (seen.has('h') || seen.has('a'))) return null;
  // And X with x.
  if (seen.has('X') && seen.has('x')) return null;
  return steps;
}

/** date-fns's notWhitespaceRegExp, searched from where the pattern ended (lastIndex, set before each use). */
const NOT_WHITE_SPACE = /\S/g;

/** date-fns's normalizeTwoDigitYear for the reference year 2000: 50-99 are 1950-1999, 0-49 are 2000-2049. */
const fromTwoDigits = (yy: number): number => (yy >= 50 ? 1900 + yy : 2000 + yy);

/** Month (1-12) named at `at` and how many characters name it, as date-fns's English matcher reads it. */
function matchMonthName(text: string, at: number, token: string): [month: number, length: number] | null {
  const rest = text.slice(at, at + 9);
  // MMM: abbreviated, else narrow; MMMMM: narrow; MMMM and longer: wide, else abbreviated, else narrow.
  const tries: [RegExp, RegExp[]][] =
    token.length === 3
      ? [
          [MONTH_ABBREVIATED, MONTH_PARSE_ANY],
          [MONTH_NARROW, MONTH_PARSE_NARROW],
        ]
      : token.length !== 5
        ? [
            [MONTH_WIDE, MONTH_PARSE_ANY],
            [MONTH_ABBREVIATED, MONTH_PARSE_ANY],
            [MONTH_NARROW, MONTH_PARSE_NARROW],
          ]
        : [[MONTH_NARROW, MONTH_PARSE_NARROW]];
  for (const [matcher, parsers] of tries) {
    const m = matcher.exec(rest);
    if (m) return [parsers.findIndex((p) => p.test(m[0])) + 1, m[0].length];
  }
  return null;
}

function parseWith(steps: Step[], text: string): DateParts | null {
  let at = 0;
  let year = REFERENCE_YEAR;
  let twoDigitYear = false;
  const parts: DateParts = { year, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  let hour12 = -1;
  let periodHour = -1;
  let zoneOffset = 0;
  for (const step of steps) {
    if (step.kind === 'literal') {
      if (!text.startsWith(step.text, at)) return null;
      at += step.text.length;
    } else if (step.kind === 'weekday') {
      const n = matchedLength(text, at, step.matchers);
      if (n === 0) return null;
      at += n;
    } else if (step.kind === 'day-period') {
      const n = matchedLength(text, at, step.matchers);
      if (n === 0) return null;
      const period = text.slice(at, at + n);
      periodHour = DAY_PERIOD_HOURS.find(([p]) => p.test(period))?.[1] ?? 0;
      at += n;
    } else if (step.kind === 'zone') {
      const zone = matchZone(text, at, step.matcher);
      if (zone === null) return null;
      zoneOffset = zone[0];
      at += zone[1];
    } else if (step.kind === 'fraction') {
      const n = step.match(text, at);
      if (n === 0) return null;
      at += n;
    } else if (step.kind === 'hour12') {
      const n = step.match(text, at);
      if (n === 0) return null;
      hour12 = digitsValue(text, at, at + n);
      at += n;
    } else if (step.kind === 'ordinal-day') {
      const found = matchOrdinal(text, at);
      if (!found) return null;
      parts.day = found[0];
      at += found[1];
    } else if (step.kind === 'month-name') {
      const found = matchMonthName(text, at, step.token);
      if (!found) return null;
      parts.month = found[0];
      at += found[1];
    } else {
      const n = step.match(text, at);
      if (n === 0) return null;
      const value = digitsValue(text, at, at + n); // `match` found n digits
      at += n;
      if (step.field === 'year') {
        year = value;
        twoDigitYear = step.token === 'yy';
      } else {
        parts[step.field] = value;
      }
    }
  }
  // Whatever follows the pattern may only be white space: one search, not a test a character (a cell may be megabytes).
  NOT_WHITE_SPACE.lastIndex = at;
  if (NOT_WHITE_SPACE.test(text)) return null;
  if (!twoDigitYear && year <= 0) return null;
  // AMPMParser (priority 80) sets the period's hour, then Hour1to12Parser (70) reads it as date-fns does.
  if (periodHour >= 0) parts.hour = periodHour;
  if (hour12 >= 0) {
    if (hour12 < 1 || hour12 > 12) return null;
    const isPM = parts.hour >= 12;
    parts.hour = isPM && hour12 < 12 ? hour12 + 12 : !isPM && hour12 === 12 ? 0 : hour12;
  }
  parts.year = twoDigitYear ? fromTwoDigits(year) : year;
  if (parts.month < 1 || parts.month > 12) return null;
  if (parts.day < 1 || parts.day > daysInMonth(parts.year, parts.month)) return null;
  if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) return null;
  // The zone's setter runs last (priority 10): the time written, moved to UTC.
  return zoneOffset === 0 ? parts : inUtc(parts, zoneOffset);
}

const SECONDS_IN_DAY = 86_400;

/**
 * The parts of the instant `offset` milliseconds (whole seconds) before the wall-clock time `parts` reads as UTC: a time
 * written in a zone `offset` east of UTC, at its UTC time (an hour of 24 is the next day's midnight).
 */
export function inUtc(parts: DateParts, offset: number): DateParts {
  const seconds = parts.hour * 3600 + parts.minute * 60 + parts.second - offset / 1000;
  // Within a day either side, as every real offset is: the day moves by one at most, by arithmetic.
  if (seconds >= -SECONDS_IN_DAY && seconds < 2 * SECONDS_IN_DAY) {
    const { year, month, day } = parts;
    const moved = seconds < 0 ? dayBefore(year, month, day) : seconds >= SECONDS_IN_DAY ? dayAfter(year, month, day) : parts;
    const inDay = seconds < 0 ? seconds + SECONDS_IN_DAY : seconds >= SECONDS_IN_DAY ? seconds - SECONDS_IN_DAY : seconds;
    const hour = Math.floor(inDay / 3600);
    const minute = Math.floor((inDay - hour * 3600) / 60);
    return { year: moved.year, month: moved.month, day: moved.day, hour, minute, second: inDay - hour * 3600 - minute * 60 };
  }
  // Offsets of days (the patterns read two digits of hours, up to 99): as date-fns moves the instant.
  const wall = new Date(0);
  wall.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  wall.setUTCHours(parts.hour, parts.minute, parts.second);
  return partsOfDate(new Date(wall.getTime() - offset));
}

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** Day of the week (0 Sunday) of a proleptic Gregorian date, as a Date (and so date-fns) counts it. */
function weekdayOf(parts: DateParts): number {
  const d = new Date(0);
  d.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  return d.getUTCDay();
}

function formatWith(steps: Step[], parts: DateParts): string {
  let out = '';
  for (const step of steps) {
    if (step.kind === 'literal') out += step.text;
    else if (step.kind === 'weekday') {
      const name = WEEKDAYS[weekdayOf(parts)];
      const n = step.token.length;
      out += n <= 3 ? name.slice(0, 3) : n === 4 ? name : n === 5 ? name[0] : name.slice(0, 2);
    } else if (step.kind === 'day-period') out += DAY_PERIOD_NAMES[step.token.length][parts.hour >= 12 ? 1 : 0];
    else if (step.kind === 'zone') out += step.written;
    else if (step.kind === 'fraction') throw new Error('A pattern with a fraction of a second is compiled for reading only');
    else if (step.kind === 'hour12') out += pad(parts.hour % 12 || 12, step.token.length);
    else if (step.kind === 'ordinal-day') out += ordinal(parts.day);
    else if (step.kind === 'month-name') {
      const name = MONTHS[parts.month - 1];
      out += step.token.length === 3 ? name.slice(0, 3) : step.token.length === 5 ? name[0] : name;
    } else if (step.field === 'year') {
      // date-fns's lightFormatters.y: a year before 1 is written as the year before Christ (0 is 1, -1 is 2).
      const year = parts.year > 0 ? parts.year : 1 - parts.year;
      out += step.token === 'yy' ? pad(year % 100, 2) : pad(year, step.token.length);
    } else if (step.field === 'month') out += step.token === 'M' ? String(parts.month) : pad(parts.month, 2);
    else out += pad(parts[step.field], step.token.length);
  }
  return out;
}

/** Compiles a pattern once; null when it uses a token outside the compiled set (use date-fns then). */
export function compileDatePattern(pattern: string): CompiledDatePattern | null {
  if (pattern === '') return null;
  const steps = stepsOf(pattern);
  if (!steps) return null;
  const writable = steps.every((step) => step.kind !== 'fraction');
  return { parse: (text) => parseWith(steps, text), format: writable ? (parts) => formatWith(steps, parts) : null };
}

/**
 * The parts of a date date-fns read, at its UTC wall-clock time. Every such date is read in UTC
 * (transformations.ts, `{ in: utc }`): a text without a zone as written, one with a zone at its UTC
 * time, so no reading hangs on the process's time zone or falls into its daylight-saving gaps.
 */
export const partsOfDate = (d: Date): DateParts => ({
  year: d.getUTCFullYear(),
  month: d.getUTCMonth() + 1,
  day: d.getUTCDate(),
  hour: d.getUTCHours(),
  minute: d.getUTCMinutes(),
  second: d.getUTCSeconds(),
});
