/** The review languages the spec names; anything else falls back to English. */
export const LOCALES = ['en', 'de', 'fr', 'nl', 'es', 'it', 'pl', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];

/** A run's `locale` as stored and shown: case-insensitive, unsupported values fall back to `en`. */
export const supportedLocale = (locale: string | null | undefined): Locale => {
  const l = (locale ?? '').toLowerCase();
  return (LOCALES as readonly string[]).includes(l) ? (l as Locale) : 'en';
};
