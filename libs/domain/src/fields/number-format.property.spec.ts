import fc from 'fast-check';
import { compileNumberReader } from './number-format';

/**
 * The reference formatter is Intl.NumberFormat: whatever it writes for a number in a locale,
 * as a decimal, an amount of money (standard or accounting) or a percentage, the reader of
 * number_format {locale, currency/percent} reads back as the number, within the formatter's rounding.
 */
const LOCALES = [
  'en-US',
  'en-GB',
  'en-IN',
  'hi-IN',
  'de-DE',
  'de-AT',
  'de-CH',
  'fr-FR',
  'fr-CH',
  'it-IT',
  'es-ES',
  'nl-NL',
  'pl-PL',
  'sv-SE',
  'nb-NO',
  'fi-FI',
  'da-DK',
  'cs-CZ',
  'pt-BR',
  'ru-RU',
  'tr-TR',
  'ja-JP',
  'ar',
  'ar-EG',
  'fa',
  'bn',
];
const CURRENCIES = ['EUR', 'USD', 'CHF', 'GBP', 'JPY', 'INR', 'PLN', 'SEK', 'BRL', 'EGP', 'CZK', 'TRY'];

const readers = new Map<string, ReturnType<typeof compileNumberReader>>();
const readerFor = (locale: string, style: 'decimal' | 'currency' | 'percent') => {
  const key = `${locale}/${style}`;
  let reader = readers.get(key);
  if (!reader) readers.set(key, (reader = compileNumberReader({ locale, currency: style === 'currency', percent: style === 'percent' })));
  return reader;
};

/** Within half a unit of the last digit the formatter wrote, and a double's own error. */
const closeEnough = (got: number | null, want: number, fractionDigits: number): boolean =>
  got !== null && Math.abs(got - want) <= 0.5 * 10 ** -fractionDigits + 1e-9 * Math.max(1, Math.abs(want));

describe('number_format reads back what Intl.NumberFormat writes', () => {
  const locale = fc.constantFrom(...LOCALES);
  const amount = fc.double({ min: -1e9, max: 1e9, noNaN: true });

  it('decimals', () => {
    fc.assert(
      fc.property(locale, amount, fc.integer({ min: 0, max: 3 }), (l, x, digits) => {
        const text = new Intl.NumberFormat(l, { maximumFractionDigits: digits }).format(x);
        const got = readerFor(l, 'decimal')(text);
        expect({ l, text, ok: closeEnough(got, x, digits) }).toEqual({ l, text, ok: true });
      }),
      { numRuns: 1500 },
    );
  });

  it('money in a currency, standard and accounting (parentheses), as symbol, narrow symbol or code', () => {
    fc.assert(
      fc.property(
        locale,
        amount,
        fc.constantFrom(...CURRENCIES),
        fc.constantFrom('standard', 'accounting' as const),
        fc.constantFrom('symbol', 'narrowSymbol', 'code' as const),
        (l, x, currency, currencySign, currencyDisplay) => {
          const format = new Intl.NumberFormat(l, { style: 'currency', currency, currencySign, currencyDisplay });
          const text = format.format(x);
          const got = readerFor(l, 'currency')(text);
          const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
          expect({ l, text, ok: closeEnough(got, x, digits) }).toEqual({ l, text, ok: true });
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('percentages, read as fractions (Intl writes 0.12 as "12 %")', () => {
    fc.assert(
      fc.property(locale, fc.double({ min: -100, max: 100, noNaN: true }), fc.integer({ min: 0, max: 2 }), (l, x, digits) => {
        const text = new Intl.NumberFormat(l, { style: 'percent', maximumFractionDigits: digits }).format(x);
        const got = readerFor(l, 'percent')(text);
        expect({ l, text, ok: closeEnough(got, x, digits + 2) }).toEqual({ l, text, ok: true });
      }),
      { numRuns: 1500 },
    );
  });

  it('never reads a number from text without digits, and refuses a currency or percent sign the format does not allow', () => {
    fc.assert(
      fc.property(locale, fc.string({ maxLength: 12 }), (l, s) => {
        const noDigits = s.replace(/\p{Nd}/gu, '');
        expect(readerFor(l, 'currency')(noDigits)).toBeNull();
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(locale, amount, (l, x) => {
        expect(readerFor(l, 'decimal')(new Intl.NumberFormat(l, { style: 'currency', currency: 'EUR' }).format(x))).toBeNull();
        expect(readerFor(l, 'decimal')(new Intl.NumberFormat(l, { style: 'percent' }).format(x))).toBeNull();
      }),
      { numRuns: 500 },
    );
  });
});
