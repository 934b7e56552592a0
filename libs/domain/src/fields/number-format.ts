import type { NumberFormat } from '@app/contracts';
import { carriesExactly, isExactly } from './exact-number';

/**
 * Numbers as people write them for people: "1.234,56", "1 234,56", "€ 1.234,56", "$1,337.00",
 * "(12.50)", "12 %", in a locale's convention or with explicit separators (a field's
 * `number_format`, docs/api.md). Each value is read in one pass over its characters (no
 * backtracking: a cell at the field limit stays linear); the locale's tables are built once
 * per compiled field, the currency symbols once per locale and process.
 */

/** Blanks people and Intl use to group thousands: space, no-break space, narrow no-break space, thin space. */
const BLANKS = new Set([' ', '\u00a0', '\u202f', '\u2009']);
/** Apostrophes used to group thousands (Swiss "1'234.56", and the typographic ones). */
const APOSTROPHES = new Set(["'", '\u2019', '\u02bc']);
/** Marks Intl puts around numbers in right-to-left locales (LRM, RLM, ALM): they carry no meaning. */
const BIDI_MARKS = /[\u200e\u200f\u061c]/g;
const HAS_BIDI_MARK = /[\u200e\u200f\u061c]/;
const MINUS_SIGNS = new Set(['-', '\u2212']);
const PERCENT_SIGNS = new Set(['%', '\u066a', '\uff05', '\ufe6a']);
const ONLY_CURRENCY_SIGNS = /^\p{Sc}+$/u;
const ISO_CURRENCY_CODE = /^[A-Z]{3}$/;

/** The separators a number_format accepts when it names them itself (docs/api.md). */
export const DECIMAL_SEPARATORS = ['.', ',', '\u066b'] as const;
export const GROUP_SEPARATORS = ['.', ',', "'", '\u2019', ' ', '\u00a0', '\u202f', '\u066c', ''] as const;

interface Conventions {
  /** The decimal marks (one, or two where a locale writes money with another: fr-CH "1 234,5" and "CHF 1 234.50"). */
  decimals: Set<string>;
  /** The characters that group thousands (blanks are always accepted as well; one kind per value). */
  group: Set<string>;
  /** The locale's own digits (Arabic-Indic, Persian, Bengali, ...) to their values; ASCII digits are always read. */
  digits: Map<string, number>;
}

const kindOf = (ch: string): string => (BLANKS.has(ch) ? ' ' : APOSTROPHES.has(ch) ? "'" : ch);

function groupSet(group: string): Set<string> {
  if (group === '') return new Set(BLANKS);
  const kind = kindOf(group);
  if (kind === "'") return new Set([...APOSTROPHES, ...BLANKS]);
  return new Set([group, ...BLANKS]);
}

const separators = (format: Intl.NumberFormat) => {
  const parts = format.formatToParts(1234567.5);
  return { decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.', group: parts.find((p) => p.type === 'group')?.value ?? '' };
};

/**
 * A locale's decimal mark, grouping mark and digits, as Intl writes them: for numbers, and
 * for money where the locale writes it otherwise (de-AT groups amounts with dots, numbers
 * with blanks), unless the two would read one character both ways (the number's meaning wins).
 */
function localeConventions(locale: string): Conventions {
  const number = separators(new Intl.NumberFormat(locale));
  const money = separators(new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }));
  const group = groupSet(number.group);
  if (money.group !== number.decimal) for (const ch of groupSet(money.group)) group.add(ch);
  const decimals = new Set([number.decimal]);
  if (!group.has(money.decimal)) decimals.add(money.decimal);
  const plain = new Intl.NumberFormat(locale, { useGrouping: false });
  const digits = new Map<string, number>();
  for (let d = 0; d <= 9; d++) {
    const ch = plain.format(d);
    if (ch !== String(d)) digits.set(ch, d);
  }
  return { decimals, group, digits };
}

/** The separators of a number_format: the locale's, where decimal/group do not name their own. */
function conventionsOf(format: NumberFormat): Conventions {
  const base = format.locale
    ? localeConventions(format.locale)
    : { decimals: new Set(['.']), group: groupSet(','), digits: new Map<string, number>() };
  const decimals = format.decimal !== undefined ? new Set([format.decimal]) : base.decimals;
  // Explicit separators without a group: the other of comma and dot groups ({"decimal": ","} reads "1.234,56").
  const group =
    format.group !== undefined
      ? groupSet(format.group)
      : format.decimal !== undefined && format.locale === undefined
        ? groupSet(format.decimal === ',' ? '.' : ',')
        : base.group;
  for (const d of decimals) group.delete(d);
  return { decimals, group, digits: base.digits };
}

/** Locales whose currency symbols every format accepts: the review page's languages ("US$", "$US", "zł", "ج.م."). */
const SYMBOL_LOCALES = ['en', 'de', 'fr', 'nl', 'es', 'it', 'pl', 'ar'];
const currencySymbols = new Map<string, Set<string>>();

function addSymbols(symbols: Set<string>, locale: string): void {
  for (const code of Intl.supportedValuesOf('currency')) {
    symbols.add(code);
    for (const currencyDisplay of ['symbol', 'narrowSymbol'] as const) {
      const part = new Intl.NumberFormat(locale, { style: 'currency', currency: code, currencyDisplay })
        .formatToParts(1)
        .find((p) => p.type === 'currency');
      if (part) symbols.add(affixKey(part.value));
    }
  }
}

/**
 * Every currency symbol Intl writes in a locale or the review's languages (symbol and narrow
 * symbol) and every ISO code, built once per locale and process, and only when a value has a
 * currency that is not plain currency signs or a code (which need no table).
 */
function currencySymbolsOf(locale: string): Set<string> {
  let symbols = currencySymbols.get(locale);
  if (symbols) return symbols;
  symbols = new Set<string>();
  for (const l of new Set([locale, ...SYMBOL_LOCALES])) addSymbols(symbols, l);
  currencySymbols.set(locale, symbols);
  return symbols;
}

/**
 * Whether a text (without blanks) is a currency: currency signs, an ISO code, or a symbol Intl
 * writes in the locale or the review's languages ("US$", "zł", "CHF", "ج.م.").
 */
export const isCurrencyText = (text: string, locale = 'en'): boolean =>
  ONLY_CURRENCY_SIGNS.test(text) || ISO_CURRENCY_CODE.test(text) || currencySymbolsOf(locale).has(affixKey(text));

/** The decimal mark a number_format writes: its own, or its locale's. */
export const decimalMarkOf = (format: NumberFormat): string =>
  format.decimal ?? separators(new Intl.NumberFormat(format.locale ?? 'en')).decimal;

/** A currency affix compared without its blanks and bidi marks ("US$", "ج.م.‏" as "ج.م."). */
const affixKey = (s: string): string => {
  let out = '';
  for (const ch of s.replace(BIDI_MARKS, '')) if (!BLANKS.has(ch)) out += ch;
  return out;
};

interface Affix {
  sign: boolean;
  minus: boolean;
  paren: boolean;
  percent: boolean;
  text: string;
}

/** What stands before or after the digits: a sign, a parenthesis, a percent sign, blanks, and the rest (a currency). */
function readAffix(s: string, paren: '(' | ')'): Affix | null {
  const a: Affix = { sign: false, minus: false, paren: false, percent: false, text: '' };
  for (const ch of s) {
    if (BLANKS.has(ch)) continue;
    if (MINUS_SIGNS.has(ch) || ch === '+') {
      if (a.sign) return null;
      a.sign = true;
      a.minus = ch !== '+';
    } else if (ch === paren) {
      if (a.paren) return null;
      a.paren = true;
    } else if (PERCENT_SIGNS.has(ch)) {
      if (a.percent) return null;
      a.percent = true;
    } else a.text += ch;
  }
  return a;
}

export interface NumberReader {
  /** The number a value writes, or null when it does not write one in this format. */
  (value: string): number | null;
}

/**
 * Compiles a field's number_format into a reader of values, once per field and run. A value
 * is digits (the locale's or ASCII) grouped in threes (or the Indian 2-2-3) by the format's
 * grouping mark or blanks, an optional decimal mark and fraction, and around them a sign or
 * accounting parentheses, a percent sign when `percent` (the value is then divided by 100: "12 %"
 * is 0.12, and so is "12" in that column) and a currency symbol or ISO code when `currency`.
 */
export function compileNumberReader(format: NumberFormat, integerField = false): NumberReader {
  const { decimals, group, digits } = conventionsOf(format);
  const locale = format.locale ?? 'en';
  const digitOf = (ch: string): number => {
    const c = ch.charCodeAt(0);
    if (c >= 48 && c <= 57) return c - 48;
    return digits.size ? (digits.get(ch) ?? -1) : -1;
  };
  const isCurrency = (text: string): boolean => isCurrencyText(text, locale);

  return (value) => {
    let s = HAS_BIDI_MARK.test(value) ? value.replace(BIDI_MARKS, '') : value;
    s = s.trim();
    let first = -1;
    let last = -1;
    for (let i = 0; i < s.length; i++)
      if (digitOf(s[i]) >= 0) {
        if (first < 0) first = i;
        last = i;
      }
    if (first < 0) return null;
    if (first > 0 && decimals.has(s[first - 1])) first--; // ".5"
    const before = readAffix(s.slice(0, first), '(');
    const after = readAffix(s.slice(last + 1), ')');
    if (!before || !after) return null;
    if (before.paren !== after.paren || (before.sign && after.sign) || (before.percent && after.percent)) return null;
    if (before.paren && (before.sign || after.sign)) return null;
    if ((before.percent || after.percent) && !format.percent) return null;
    if (before.text && after.text) return null;
    const currency = before.text || after.text;
    if (currency && (!format.currency || !isCurrency(currency))) return null;

    // The digits: groups of the integer part (sizes checked below), a decimal mark, the fraction.
    let integer = '';
    let fraction = '';
    let inFraction = false;
    let groupKind: string | null = null;
    let middle = 0; // the size every group between the first and the last has (0: none yet)
    let run = 0;
    const body = s.slice(first, last + 1);
    for (let i = 0; i < body.length; i++) {
      const ch = body[i];
      const d = digitOf(ch);
      if (d >= 0) {
        if (inFraction) fraction += d;
        else integer += d;
        run++;
      } else if (decimals.has(ch) && !inFraction) {
        if (groupKind !== null && run !== 3) return null;
        inFraction = true;
        run = 0;
      } else if (!inFraction && group.has(ch)) {
        const kind = kindOf(ch);
        if (run === 0 || (groupKind !== null && kind !== groupKind)) return null;
        if (groupKind === null) {
          groupKind = kind;
          if (run > 3) return null;
        } else if ((run !== 2 && run !== 3) || (middle !== 0 && run !== middle)) return null;
        else middle = run;
        run = 0;
      } else return null;
    }
    if (groupKind !== null && !inFraction && run !== 3) return null;
    const digits = `${integer || '0'}${fraction ? `.${fraction}` : ''}`;
    const written = format.percent ? `${digits}e-2` : digits;
    const n = Number(written);
    // A number a double cannot carry is no number of this field (exact-number.ts); digits alone must be carried as
    // written, also before a percentage divides them (9007199254740993 % was read 90071992547409.92 without a word).
    if (!Number.isFinite(n) || !carriesExactly(written, n, integerField)) return null;
    // A percentage past 2^53 is exactly its digits divided by 100, or no number (digits alone are an amount, not a double's approximation).
    if (format.percent && Math.abs(n) >= 2 ** 53 && !isExactly(written, n)) return null;
    if (format.percent && !carriesExactly(digits, Number(digits), false)) return null;
    return before.paren || before.minus || after.minus ? -n : n;
  };
}
