import isURL from 'validator/lib/isURL';
import type { Normaliser } from '@app/contracts';
import { compileDateRewrite } from './transformations';
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

/** Currency signs, ISO currency codes, and the blanks and apostrophes used to group thousands. */
const CURRENCY = /\p{Sc}|\b[A-Z]{3}\b/gu;
const GROUPING_BLANKS = /[\s\u00a0\u202f'’]/g;

/**
 * An amount as written for people ("$712.5", "1.234,50 €", "CHF 1'250.00", "(12.50)") to
 * a plain decimal ("712.5", "1234.50", "1250.00", "-12.50"), the decimal mark read as
 * decimalMark says. Anything that is not then a number ("N/A") is left as it was.
 */
function normaliseAmount(value: string, decimal: ',' | '.'): string {
  let t = value.trim();
  let negative = false;
  if (/^\(.*\)$/.test(t)) {
    negative = true;
    t = t.slice(1, -1);
  }
  t = t.replace(CURRENCY, '').replace(GROUPING_BLANKS, '');
  if (t.startsWith('-')) {
    negative = !negative;
    t = t.slice(1);
  } else if (t.endsWith('-')) {
    negative = !negative;
    t = t.slice(0, -1);
  }
  const separator = decimalMark(t, decimal);
  t = t.replace(separator === ',' ? /\./g : /,/g, '');
  if (separator === ',') t = t.replace(',', '.');
  if (!isDecimalNumber(t) || /^[+-]/.test(t)) return value;
  return negative ? `-${t}` : t;
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
      const decimal = options.decimal_separator ?? '.';
      return (v) => (v.trim() === '' ? v : normaliseAmount(v, decimal));
    }
    case 'url':
      return normaliseUrl;
    case 'date': {
      const rewrite = compileDateRewrite(options.date_pattern ?? null, options.target_pattern);
      return (v) => (v.trim() === '' ? v : rewrite(v));
    }
  }
}
