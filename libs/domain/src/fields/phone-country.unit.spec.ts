import type { FieldDefinition } from '@app/contracts';
import { mapRow, planFields } from './map-row';
import { compileCountryReader, compilePhoneReader } from './phone-country';
import { typeValue } from './typed-value';

const readAll = (read: (v: string) => string | null, values: string[]) => Object.fromEntries(values.map((v) => [v, read(v)]));

describe('phone numbers', () => {
  it('are written in E.164; the default region is used only for national numbers', () => {
    expect(
      readAll(compilePhoneReader('DE'), [
        '030 123456',
        '(030) 1234-5678',
        '+49 30 123456',
        '0049 30 1234567',
        '+1 212-555-0100',
        '+44 20 7946 0958',
        '0151 23456789',
      ]),
    ).toEqual({
      '030 123456': '+4930123456',
      '(030) 1234-5678': '+493012345678',
      '+49 30 123456': '+4930123456',
      '0049 30 1234567': '+49301234567',
      '+1 212-555-0100': '+12125550100',
      '+44 20 7946 0958': '+442079460958',
      '0151 23456789': '+4915123456789',
    });
    expect(readAll(compilePhoneReader('US'), ['(212) 555-0100', '030 123456'])).toEqual({
      '(212) 555-0100': '+12125550100',
      '030 123456': null,
    });
  });

  it('builds no regular expression per number (patches/README.md: the library built several for each)', () => {
    const read = compilePhoneReader('DE');
    const numbers = Array.from({ length: 1000 }, (_, i) => [
      `030 ${3000000 + i * 7}`,
      `+44 20 7946 ${1000 + i}`,
      `+1 212-555-${1000 + i}`,
    ]).flat();
    numbers.slice(0, 30).forEach(read); // each country's patterns are compiled on first use
    const Built = RegExp;
    let built = 0;
    globalThis.RegExp = new Proxy(Built, {
      construct: (target, args: [string, string?]) => (built++, new target(...args)),
      apply: (target, _this, args: [string, string?]) => (built++, target(...args)),
    });
    let valid = 0;
    try {
      for (const n of numbers) if (read(n) !== null) valid++;
    } finally {
      globalThis.RegExp = Built;
    }
    expect(valid).toBe(numbers.length);
    expect(built).toBeLessThan(30);
  });

  it('keeps an extension, as RFC 3966 writes it, and reads it back the same', () => {
    const read = compilePhoneReader('DE');
    expect(readAll(read, ['+49 30 123456 ext. 12', '030 123456 x99', '+1 415-555-2671;ext=7', '+4930123456;ext=12'])).toEqual({
      '+49 30 123456 ext. 12': '+4930123456;ext=12',
      '030 123456 x99': '+4930123456;ext=99',
      '+1 415-555-2671;ext=7': '+14155552671;ext=7',
      '+4930123456;ext=12': '+4930123456;ext=12',
    });
  });

  it('without a default region, only international numbers are numbers', () => {
    expect(readAll(compilePhoneReader(undefined), ['+49 30 123456', '030 123456'])).toEqual({
      '+49 30 123456': '+4930123456',
      '030 123456': null,
    });
  });

  it('an invalid or unparseable number is a type problem, kept as read', () => {
    const phone: FieldDefinition = { description: '', data_type: 'phone', is_required: false, default_region: 'DE' };
    expect(['+49 123', 'call me', 'call me 030 123456', '12', `+49 ${'1'.repeat(300)}`].map((v) => typeValue(v, phone))).toEqual([
      { value: '+49 123', problem: 'type' },
      { value: 'call me', problem: 'type' },
      { value: 'call me 030 123456', problem: 'type' },
      { value: '12', problem: 'type' },
      { value: `+49 ${'1'.repeat(300)}`, problem: 'type' },
    ]);
    expect(typeValue(' 030 123456 ', phone)).toEqual({ value: '+4930123456', problem: null });
  });
});

describe('countries', () => {
  const inputs = [
    'DE',
    'de',
    'DEU',
    'Germany',
    'Deutschland',
    'Allemagne',
    'Duitsland',
    'Alemania',
    'Germania',
    'Niemcy',
    'ألمانيا',
    ' germany ',
  ];

  it('reads alpha-2, alpha-3 and names in every review language, and writes each country_format', () => {
    expect(new Set(inputs.map(compileCountryReader('alpha2')))).toEqual(new Set(['DE']));
    expect(new Set(inputs.map(compileCountryReader('alpha3')))).toEqual(new Set(['DEU']));
    expect(new Set(inputs.map(compileCountryReader('name')))).toEqual(new Set(['Germany']));
    expect(new Set(inputs.map(compileCountryReader(undefined)))).toEqual(new Set(['DE']));
  });

  it('reads accents and alternative names, and other countries by their own names', () => {
    expect(
      readAll(compileCountryReader('alpha3'), [
        'Österreich',
        'Osterreich',
        'Côte d’Ivoire',
        'Wybrzeże Kości Słoniowej',
        'USA',
        'United States',
        'UK',
        'Schweiz',
        'Suisse',
        'Zwitserland',
        'Szwajcaria',
        'سويسرا',
        'España',
        'Spanien',
      ]),
    ).toEqual({
      Österreich: 'AUT',
      Osterreich: 'AUT',
      'Côte d’Ivoire': 'CIV',
      'Wybrzeże Kości Słoniowej': 'CIV',
      USA: 'USA',
      'United States': 'USA',
      UK: 'GBR',
      Schweiz: 'CHE',
      Suisse: 'CHE',
      Zwitserland: 'CHE',
      Szwajcaria: 'CHE',
      سويسرا: 'CHE',
      España: 'ESP',
      Spanien: 'ESP',
    });
  });

  it('a value that names no country is a type problem, kept as read', () => {
    const country: FieldDefinition = { description: '', data_type: 'country', is_required: false, country_format: 'alpha2' };
    expect(['Atlantis', 'XX', 'D', 'x'.repeat(300)].map((v) => typeValue(v, country).problem)).toEqual(['type', 'type', 'type', 'type']);
    expect(typeValue('Atlantis', country).value).toBe('Atlantis');
  });

  it('CSV output writes the normalised phone number and country, JSON output too', () => {
    const fields: Record<string, FieldDefinition> = {
      phone: { description: '', data_type: 'phone', is_required: false, default_region: 'DE' },
      country: { description: '', data_type: 'country', is_required: false, country_format: 'alpha3' },
    };
    const plan = planFields(fields, { phone: 'Tel', country: 'Land' }, ['Tel', 'Land']);
    expect(mapRow(['030 123456', 'Deutschland'], 1, plan, false).record).toEqual({ phone: '+4930123456', country: 'DEU' });
    expect(mapRow(['030 123456', 'Deutschland'], 1, plan, true).record).toEqual({ phone: '+4930123456', country: 'DEU' });
    expect(mapRow(['n/a', 'Atlantis'], 2, plan, false).record).toEqual({ phone: 'n/a', country: 'Atlantis' });
  });
});
