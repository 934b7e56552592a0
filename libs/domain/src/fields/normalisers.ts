import isURL from 'validator/lib/isURL';
import type { Normaliser } from '@app/contracts';
import { compileDateRewrite } from './transformations';
import { isCurrencyText } from './number-format';
import { isDecimalNumber } from './typed-value';

export const NORMALISERS: readonly Normaliser[] = ['trim', 'boolean', 'amount', 'url', 'date'];

/**
 * Yes and no as people write them in a spreadsheet, in the review's eight languages
 * (en, de, fr, nl, es, it, pl, ar) and the common marks. Matched trimmed, case-insensitive.
 */
const YES = [
  'true',
  'yes',
  'y',
  '1',
  'x',
  '✓',
  '✔',
  'on',
  'active',
  'enabled',
  'ja',
  'wahr',
  'aktiv',
  'oui',
  'vrai',
  'actif',
  'waar',
  'actief',
  'sí',
  'si',
  'verdadero',
  'activo',
  'sì',
  'vero',
  'attivo',
  'tak',
  'prawda',
  'aktywny',
  'نعم',
  'صحيح',
  'نشط',
];
const NO = [
  'false',
  'no',
  'n',
  '0',
  'off',
  'inactive',
  'disabled',
  'nein',
  'falsch',
  'inaktiv',
  'non',
  'faux',
  'inactif',
  'nee',
  'onwaar',
  'inactief',
  'falso',
  'inactivo',
  'inattivo',
  'nie',
  'fałsz',
  'nieaktywny',
  'لا',
  'خطأ',
  'غير نشط',
];
const BOOLEAN_WORDS = new Map<string, string>([...NO.map((w) => [w, 'false'] as const), ...YES.map((w) => [w, 'true'] as const)]);

function normaliseBoolean(value: string): string {
  return BOOLEAN_WORDS.get(value.trim().toLocaleLowerCase()) ?? value;
}

const GROUPING_BLANKS = /[\s\u00a0\u202f'’]/g;
/** Marks Intl puts around numbers in right-to-left locales: they carry no meaning. */
const BIDI_MARKS = /[\u200e\u200f\u061c]/g;
const NON_ASCII = /[^\t\n\r\x20-\x7e]/;
/** The zeros of the digit sets people write amounts in besides ASCII: Arabic-Indic, Persian, Devanagari, Bengali, full-width. */
const DIGIT_ZEROS = [0x0660, 0x06f0, 0x0966, 0x09e6, 0xff10];

/** Digits of other scripts as ASCII digits, the Arabic decimal mark as a dot and its thousands mark dropped. */
function asciiNumerals(s: string): string {
  if (!NON_ASCII.test(s)) return s;
  let out = '';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    const zero = DIGIT_ZEROS.find((z) => code >= z && code <= z + 9);
    out += zero !== undefined ? String(code - zero) : ch === '\u066b' ? '.' : ch === '\u066c' ? '' : ch === '\u2212' ? '-' : ch;
  }
  return out;
}

interface AmountAffix {
  minus: boolean;
  paren: boolean;
  /** What else stands there, without blanks: a currency, or something that makes the value no amount. */
  text: string;
}

/** What stands before or after an amount's digits: blanks, one sign, a parenthesis, a percent sign, a currency. */
function amountAffix(s: string, paren: '(' | ')'): AmountAffix | null {
  const a: AmountAffix = { minus: false, paren: false, text: '' };
  let signs = 0;
  let percents = 0;
  for (const ch of s) {
    if (/\s/.test(ch)) continue;
    if (ch === '-' || ch === '+') {
      if (++signs > 1) return null;
      a.minus = ch === '-';
    } else if (ch === paren) {
      if (a.paren) return null;
      a.paren = true;
    } else if (ch === '%' || ch === '\u066a') {
      if (++percents > 1) return null;
    } else a.text += ch;
  }
  return a;
}

/**
 * An amount as written for people ("$712.5", "1.234,50 €", "CHF 1'250.00", "(12.50)", "12 %",
 * "US$ -3", "١٬٢٣٤٫٥") to a plain decimal ("712.5", "1234.50", "1250.00", "-12.50", "12", "-3",
 * "1234.5"), the decimal mark read as decimalMark says, written with `outputDecimal` (the
 * field's number_format's mark, so that its check reads it; "." otherwise). A percent sign is
 * dropped: the number is the one written (a field whose number_format says percent reads it as
 * a percentage). Anything that is not then a number ("N/A", "12 apples") is left as it was.
 */
function normaliseAmount(value: string, decimal: ',' | '.', outputDecimal: string, whole: boolean): string {
  const t = asciiNumerals(value.replace(BIDI_MARKS, '')).trim();
  let first = -1;
  let last = -1;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first < 0) return value;
  if (first > 0 && (t[first - 1] === '.' || t[first - 1] === ',')) first--; // ".5"
  const head = amountAffix(t.slice(0, first), '(');
  const tail = amountAffix(t.slice(last + 1), ')');
  if (!head || !tail || head.paren !== tail.paren || (head.minus && tail.minus) || (head.text && tail.text)) return value;
  const currency = head.text || tail.text;
  if (currency && !isCurrencyText(currency)) return value;
  let n = t.slice(first, last + 1).replace(GROUPING_BLANKS, '');
  const separator = decimalMark(n, decimal);
  n = n.replace(separator === ',' ? /\./g : /,/g, '');
  if (separator === ',') n = n.replace(',', '.');
  if (!isDecimalNumber(n) || /^[+-]/.test(n)) return value;
  // For a whole-number field, decimals that are all zeros say nothing ("1.000" read with a decimal point is 1): written
  // without them, so that the field takes the value (it refuses "1.000", which may be a thousand).
  if (whole) n = n.replace(/\.0+$/, '');
  const negative = head.paren !== (head.minus || tail.minus);
  const out = negative ? `-${n}` : n;
  return outputDecimal === '.' ? out : out.replace('.', outputDecimal);
}

/**
 * Which mark separates the decimals in `t`: the last one when both are used; a mark used
 * twice groups thousands; a single mark followed by other than three digits is the
 * decimal one; otherwise ("1.234", "1,234") the reviewer's choice decides.
 */
function decimalMark(t: string, preferred: ',' | '.'): ',' | '.' {
  const comma = t.lastIndexOf(',');
  const dot = t.lastIndexOf('.');
  if (comma >= 0 && dot >= 0) return comma > dot ? ',' : '.';
  const mark = comma >= 0 ? ',' : dot >= 0 ? '.' : null;
  if (mark === null) return preferred;
  const other = mark === ',' ? '.' : ',';
  if (t.indexOf(mark) !== t.lastIndexOf(mark)) return other;
  const digitsAfter = t.length - t.lastIndexOf(mark) - 1;
  return digitsAfter !== 3 ? mark : preferred;
}

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A web address written without its scheme ("acme.com/contact") gets https://, if it then is one. */
function normaliseUrl(value: string): string {
  const t = value.trim();
  if (t === '' || HAS_SCHEME.test(t)) return value;
  const candidate = `https://${t}`;
  return isURL(candidate, { require_protocol: true }) ? candidate : value;
}

export interface NormaliserOptions {
  decimal_separator?: ',' | '.';
  /** For `amount`: the decimal mark the field's number_format reads ("." when it has none). */
  output_decimal?: string;
  /** For `amount`: the field takes whole numbers (an `integer`): decimals that are all zeros are left off. */
  whole_number?: boolean;
  /** For `date`: the second pattern the values are written in. */
  date_pattern?: string;
  /** For `date`: the pattern the field delivers (its date_format's `to`, its format, or yyyy-MM-dd). */
  target_pattern: string;
}

/** Compiles one normaliser, once per run, into a function of one value. Pure. */
export function compileNormaliser(name: Normaliser, options: NormaliserOptions): (value: string) => string {
  switch (name) {
    case 'trim':
      return (v) => v.trim();
    case 'boolean':
      return normaliseBoolean;
    case 'amount': {
      const output = options.output_decimal ?? '.';
      const decimal = options.decimal_separator ?? (output === ',' ? ',' : '.');
      const whole = options.whole_number === true;
      return (v) => (v.trim() === '' ? v : normaliseAmount(v, decimal, output, whole));
    }
    case 'url':
      return normaliseUrl;
    case 'date': {
      const rewrite = compileDateRewrite(options.date_pattern ?? null, options.target_pattern);
      return (v) => (v.trim() === '' ? v : rewrite(v));
    }
  }
}
