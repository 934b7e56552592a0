import { runLocale } from './run-locale';

describe("a run's locale", () => {
  it('is a review language in any letter case', () => {
    expect(['de', 'DE', 'Fr', 'ar', 'en'].map(runLocale)).toEqual(['de', 'de', 'fr', 'ar', 'en']);
  });

  it('is the language of a regional or script tag when that language is one (it fell back to en)', () => {
    expect(
      ['fr-CA', 'FR-ca', 'de-AT', 'de-CH-1996', 'es-419', 'ar-EG', 'nl-BE', 'pl-PL', 'it-CH', 'en-GB', 'sr-Latn-RS'].map(runLocale),
    ).toEqual(['fr', 'fr', 'de', 'de', 'es', 'ar', 'nl', 'pl', 'it', 'en', 'en']);
  });

  it('is en for anything else: another language, no tag at all, nothing', () => {
    for (const given of ['pt-BR', 'xx', 'fr_CA', 'fr-', ' fr', 'français', '', null, undefined]) expect(runLocale(given)).toBe('en');
  });
});
