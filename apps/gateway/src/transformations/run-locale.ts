import { supportedLocale, type Locale } from '@app/domain';

/**
 * A run's `locale` as given, made one of the review languages: one of them in any letter case is itself, and a BCP 47
 * tag naming a region or script of one (`fr-CA`, `de-AT`, `es-419`) is that language, read by Intl.Locale (which
 * refuses what is no tag, such as `fr_CA`). Anything else (`pt-BR`, `xx`, `fr_CA`) is `en`, as the spec says of
 * unsupported values.
 */
export function runLocale(given: string | null | undefined): Locale {
  if (!given) return supportedLocale(given);
  let language: string;
  try {
    language = new Intl.Locale(given).language;
  } catch {
    return supportedLocale(given);
  }
  return supportedLocale(language);
}
