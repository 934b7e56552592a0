import { fieldFormatsOf, validateFieldFormats } from './field-formats';

const problems = (def: Record<string, unknown>) => validateFieldFormats(def).map((p) => `${p.at}: ${p.problem}`);

describe('field format options', () => {
  it('accepts the documented shapes and stores them (the locale canonical)', () => {
    const ok = [
      { data_type: 'number', number_format: { locale: 'de-de', currency: true } },
      { data_type: 'integer', number_format: { decimal: ',', group: '.' } },
      { data_type: 'number', number_format: { decimal: '.', group: '\u202f', percent: true } },
      { data_type: 'phone', default_region: 'DE' },
      { data_type: 'phone' },
      { data_type: 'country', country_format: 'name' },
    ];
    expect(ok.map(problems)).toEqual(ok.map(() => []));
    expect(fieldFormatsOf(ok[0])).toEqual({ number_format: { locale: 'de-DE', currency: true } });
    expect(fieldFormatsOf({ data_type: 'string' })).toEqual({});
  });

  it('says what is wrong with each bad option', () => {
    expect(problems({ data_type: 'string', number_format: { locale: 'de-DE' } })).toEqual([
      'number_format: number_format is only for data_type "number" or "integer".',
    ]);
    expect(problems({ data_type: 'number', number_format: 'de-DE' })).toEqual([
      'number_format: number_format must be an object such as {"locale": "de-DE"} or {"decimal": ",", "group": "."}.',
    ]);
    expect(problems({ data_type: 'number', number_format: { locale: 'xx-notalocale-!!' } })).toEqual([
      'number_format.locale: number_format.locale must be a locale such as "de-DE", "fr-CH" or "en-IN".',
    ]);
    expect(problems({ data_type: 'number', number_format: { decimal: ';', group: 'x', currency: 'yes', colour: 1 } })).toEqual([
      'number_format: number_format may only have locale, decimal, group, currency, percent (not colour).',
      'number_format.decimal: number_format.decimal must be one of ".", ",", "٫".',
      'number_format.group: number_format.group must be one of ".", ",", "\'", "’", " ", "\u00a0", "\u202f", "٬", "" ("" for none).',
      'number_format.currency: number_format.currency must be true or false.',
    ]);
    expect(problems({ data_type: 'number', number_format: { decimal: ',', group: ',' } })).toEqual([
      'number_format.group: number_format.group must differ from number_format.decimal.',
    ]);
    expect(problems({ data_type: 'number', number_format: {} })).toEqual([
      'number_format: number_format needs a locale or a decimal separator (decimal).',
    ]);
    expect(problems({ data_type: 'phone', default_region: 'de' })).toEqual([
      'default_region: default_region must be an ISO 3166 alpha-2 region code in capitals, such as "DE".',
    ]);
    expect(problems({ data_type: 'phone', default_region: 'ZZ' })).toHaveLength(1);
    expect(problems({ data_type: 'string', default_region: 'DE' })).toEqual([
      'default_region: default_region is only for data_type "phone".',
    ]);
    expect(problems({ data_type: 'country', country_format: 'iso' })).toEqual([
      'country_format: country_format must be one of alpha2, alpha3, name.',
    ]);
    expect(problems({ data_type: 'phone', country_format: 'alpha2' })).toEqual([
      'country_format: country_format is only for data_type "country".',
    ]);
  });
});
