import type { CountryCode } from 'libphonenumber-js';
import type { CountryFormat } from '@app/contracts';
import { onFirstUse } from './on-first-use';

/*
 * The phone and country libraries are loaded when a phone or country field is first used, not
 * with the module: with libphonenumber's metadata and the country names of eight languages they
 * add about 6 MB to each worker thread that loads them, which a schema without such fields
 * should not pay (bench/README.md, "Two threads by default"). The API's thread loads
 * libphonenumber anyway (class-validator's IsPhoneNumber).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- the lazy loads described above */
const phoneNumbers = onFirstUse(() => require('libphonenumber-js') as typeof import('libphonenumber-js'));
const countryNames = onFirstUse(() => require('i18n-iso-countries') as typeof import('i18n-iso-countries'));

/** The review page's languages (apps/gateway/src/review/web/i18n): country names are read in each. */
const NAME_LOCALES = ['en', 'de', 'fr', 'nl', 'es', 'it', 'pl', 'ar'] as const;
const localeData = (locale: (typeof NAME_LOCALES)[number]) =>
  require(`i18n-iso-countries/langs/${locale}.json`) as import('i18n-iso-countries').LocaleData;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Longer than any phone number with its punctuation and extension: not parsed at all (the library refuses 250+). */
const MAX_PHONE_TEXT = 64;

/** A region libphonenumber-js knows (ISO 3166 alpha-2, upper case), for a phone field's default_region. */
export const isPhoneRegion = (region: string): boolean => /^[A-Z]{2}$/.test(region) && phoneNumbers().isSupportedCountry(region);

/**
 * A phone number in E.164 ("+4930123456", with ";ext=12" when it has an extension), or null when it is not a valid number. Numbers
 * written internationally ("+49 30 123456", "0049 30 123456" from a region with 00) keep their
 * country; the default region is used only for national ones ("030 123456").
 */
export function compilePhoneReader(defaultRegion: string | undefined): (value: string) => string | null {
  const region = defaultRegion as CountryCode | undefined;
  const { parsePhoneNumberFromString } = phoneNumbers();
  return (value) => {
    const t = value.trim();
    if (t.length > MAX_PHONE_TEXT) return null;
    // extract: false, the whole value must be the number ("call me 030 123456" is not one).
    const phone = parsePhoneNumberFromString(t, region ? { defaultCountry: region, extract: false } : { extract: false });
    if (!phone?.isValid()) return null;
    // An extension is kept, written as RFC 3966 writes it ("+4930123456;ext=12", which the library reads back): E.164
    // has no room for one, and dropping it would lose part of the value without a word.
    return phone.ext ? `${phone.number};ext=${phone.ext}` : phone.number;
  };
}

/** A name as it is looked up: lower case, without accents, dots, apostrophes and doubled blanks. */
const nameKey = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f.'’()]/g, '')
    .replace(/[\s,-]+/g, ' ')
    .trim()
    .toLocaleLowerCase('en');

let namesToAlpha2: Map<string, string> | null = null;

/**
 * Every country's codes and names (official and alternative, in the review's languages) to
 * its alpha-2 code, built once per process when a country field is first checked. A name two
 * countries share in different languages is left out: the value is then a problem, not a guess.
 */
function countryTable(): Map<string, string> {
  if (namesToAlpha2) return namesToAlpha2;
  const countries = countryNames();
  const table = new Map<string, string>();
  const ambiguous = new Set<string>();
  for (const locale of NAME_LOCALES) countries.registerLocale(localeData(locale));
  for (const locale of NAME_LOCALES)
    for (const [alpha2, names] of Object.entries(countries.getNames(locale, { select: 'all' })))
      for (const name of names) {
        const key = nameKey(name);
        const known = table.get(key);
        if (known !== undefined && known !== alpha2) ambiguous.add(key);
        else table.set(key, alpha2);
      }
  for (const key of ambiguous) table.delete(key);
  // Codes last: they win over any name that happens to read like one.
  for (const [alpha2, alpha3] of Object.entries(countries.getAlpha2Codes()).map(([a2]) => [a2, countries.alpha2ToAlpha3(a2)] as const)) {
    table.set(alpha2.toLowerCase(), alpha2);
    if (alpha3) table.set(alpha3.toLowerCase(), alpha2);
  }
  namesToAlpha2 = table;
  return table;
}

/** Longer than any country name in the tables: not looked up. */
const MAX_COUNTRY_TEXT = 100;

/**
 * A country as the field's country_format writes it (alpha-2 "DE", alpha-3 "DEU", or its
 * English name "Germany"), from an alpha-2 or alpha-3 code or a name in any review language;
 * null when the value names no country.
 */
export function compileCountryReader(format: CountryFormat | undefined): (value: string) => string | null {
  const table = countryTable();
  const countries = countryNames();
  const out = new Map<string, string>();
  for (const alpha2 of new Set(table.values()))
    out.set(
      alpha2,
      format === 'alpha3' ? countries.alpha2ToAlpha3(alpha2)! : format === 'name' ? countries.getName(alpha2, 'en')! : alpha2,
    );
  return (value) => {
    if (value.length > MAX_COUNTRY_TEXT) return null;
    const alpha2 = table.get(nameKey(value));
    return alpha2 === undefined ? null : (out.get(alpha2) ?? null);
  };
}
