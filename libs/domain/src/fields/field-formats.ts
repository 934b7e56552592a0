import type { CountryFormat, FieldDefinition } from '@app/contracts';
import { DECIMAL_SEPARATORS, GROUP_SEPARATORS } from './number-format';
import { isPhoneRegion } from './phone-country';
import { isDatePattern } from './transformations';

export const COUNTRY_FORMATS: readonly CountryFormat[] = ['alpha2', 'alpha3', 'name'];
const NUMBER_FORMAT_KEYS = ['locale', 'decimal', 'group', 'currency', 'percent'];

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (s: string): string => JSON.stringify(s);

/** A BCP 47 tag Intl knows numbers for ("de-DE", "fr", "ar-EG"); the canonical spelling, or null. */
function knownLocale(tag: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && Intl.NumberFormat.supportedLocalesOf([canonical]).length === 1 ? canonical : null;
  } catch {
    return null;
  }
}

function numberFormatProblems(v: unknown, dataType: unknown): { at: string; problem: string }[] {
  const at = 'number_format';
  if (dataType !== 'number' && dataType !== 'integer')
    return [{ at, problem: 'number_format is only for data_type "number" or "integer".' }];
  if (!isObj(v)) return [{ at, problem: 'number_format must be an object such as {"locale": "de-DE"} or {"decimal": ",", "group": "."}.' }];
  const problems: { at: string; problem: string }[] = [];
  const unknown = Object.keys(v).filter((k) => !NUMBER_FORMAT_KEYS.includes(k));
  if (unknown.length)
    problems.push({ at, problem: `number_format may only have ${NUMBER_FORMAT_KEYS.join(', ')} (not ${unknown.join(', ')}).` });
  if (v.locale !== undefined && (typeof v.locale !== 'string' || v.locale.length > 35 || knownLocale(v.locale) === null))
    problems.push({ at: `${at}.locale`, problem: 'number_format.locale must be a locale such as "de-DE", "fr-CH" or "en-IN".' });
  if (v.decimal !== undefined && !(DECIMAL_SEPARATORS as readonly unknown[]).includes(v.decimal))
    problems.push({ at: `${at}.decimal`, problem: `number_format.decimal must be one of ${DECIMAL_SEPARATORS.map(shown).join(', ')}.` });
  if (v.group !== undefined && !(GROUP_SEPARATORS as readonly unknown[]).includes(v.group))
    problems.push({
      at: `${at}.group`,
      problem: `number_format.group must be one of ${GROUP_SEPARATORS.map(shown).join(', ')} ("" for none).`,
    });
  if (v.decimal !== undefined && v.decimal === v.group)
    problems.push({ at: `${at}.group`, problem: 'number_format.group must differ from number_format.decimal.' });
  if (v.locale === undefined && v.decimal === undefined)
    problems.push({ at, problem: 'number_format needs a locale or a decimal separator (decimal).' });
  for (const flag of ['currency', 'percent'] as const)
    if (v[flag] !== undefined && typeof v[flag] !== 'boolean')
      problems.push({ at: `${at}.${flag}`, problem: `number_format.${flag} must be true or false.` });
  return problems;
}

/**
 * The problems of a field's format options (number_format, default_region, country_format),
 * each for the data type it belongs to; `at` is the option's path below the field. Pure.
 */
export function validateFieldFormats(def: Record<string, unknown>): { at: string; problem: string }[] {
  const problems: { at: string; problem: string }[] = [];
  if (def.number_format !== undefined && def.number_format !== null)
    problems.push(...numberFormatProblems(def.number_format, def.data_type));
  if (def.default_region !== undefined && def.default_region !== null) {
    if (def.data_type !== 'phone') problems.push({ at: 'default_region', problem: 'default_region is only for data_type "phone".' });
    else if (typeof def.default_region !== 'string' || !isPhoneRegion(def.default_region))
      problems.push({ at: 'default_region', problem: 'default_region must be an ISO 3166 alpha-2 region code in capitals, such as "DE".' });
  }
  // A date field's format is the pattern its values are read in (typed-value.ts); other fields' format is free text.
  if (
    (def.data_type === 'date' || def.data_type === 'datetime') &&
    typeof def.format === 'string' &&
    def.format &&
    !isDatePattern(def.format)
  )
    problems.push({ at: 'format', problem: `format must be a date pattern such as dd.MM.yyyy; ${shown(def.format)} is not one.` });
  if (def.country_format !== undefined && def.country_format !== null) {
    if (def.data_type !== 'country') problems.push({ at: 'country_format', problem: 'country_format is only for data_type "country".' });
    else if (!(COUNTRY_FORMATS as readonly unknown[]).includes(def.country_format))
      problems.push({ at: 'country_format', problem: `country_format must be one of ${COUNTRY_FORMATS.join(', ')}.` });
  }
  return problems;
}

/** The format options of a field definition that validateFieldFormats accepted, as a schema stores them. */
export function fieldFormatsOf(def: Record<string, unknown>): Pick<FieldDefinition, 'number_format' | 'default_region' | 'country_format'> {
  const nf = isObj(def.number_format) ? def.number_format : null;
  return {
    ...(nf
      ? {
          number_format: Object.fromEntries(
            NUMBER_FORMAT_KEYS.filter((k) => nf[k] !== undefined).map((k) => [k, k === 'locale' ? knownLocale(nf[k] as string) : nf[k]]),
          ),
        }
      : {}),
    ...(typeof def.default_region === 'string' ? { default_region: def.default_region } : {}),
    ...(typeof def.country_format === 'string' ? { country_format: def.country_format as CountryFormat } : {}),
  };
}
