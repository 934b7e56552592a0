import type { FieldDefinition, NumberFormat } from '@app/contracts';
import { compileNumberReader } from './number-format';
import { mapRow, planFields } from './map-row';
import { typeValue } from './typed-value';

const read = (format: NumberFormat, values: string[]) => {
  const reader = compileNumberReader(format);
  return Object.fromEntries(values.map((v) => [v, reader(v)]));
};

describe('number_format: numbers as people write them', () => {
  it('reads German numbers, grouped by dots or any blank Intl uses, and money when currency is on', () => {
    expect(
      read({ locale: 'de-DE', currency: true }, [
        '1.234,56',
        '1 234,56',
        '1\u202f234,56',
        '1\u00a0234,56',
        '€ 1.234,56',
        '1.234,56 €',
        '-1.234.567,891',
        '1234,5',
        ',5',
        'EUR 3',
        '(12,50)',
        '12,50-',
      ]),
    ).toEqual({
      '1.234,56': 1234.56,
      '1 234,56': 1234.56,
      '1\u202f234,56': 1234.56,
      '1\u00a0234,56': 1234.56,
      '€ 1.234,56': 1234.56,
      '1.234,56 €': 1234.56,
      '-1.234.567,891': -1234567.891,
      '1234,5': 1234.5,
      ',5': 0.5,
      'EUR 3': 3,
      '(12,50)': -12.5,
      '12,50-': -12.5,
    });
  });

  it('refuses what the convention does not write: groups not of three, a second decimal mark, mixed grouping, words', () => {
    expect(
      read({ locale: 'de-DE', currency: true }, [
        '1.5',
        '1.23,4',
        '1,234,5',
        '1.234 567,8',
        '12 %',
        'ca. 12',
        '12 Stück',
        '€ 12 $',
        '(12',
        '--3',
        '',
      ]),
    ).toEqual({
      '1.5': null,
      '1.23,4': null,
      '1,234,5': null,
      '1.234 567,8': null,
      '12 %': null,
      'ca. 12': null,
      '12 Stück': null,
      '€ 12 $': null,
      '(12': null,
      '--3': null,
      '': null,
    });
  });

  it('refuses currency symbols unless currency is on', () => {
    expect(read({ locale: 'en-US' }, ['$1,337.00', '1,337.00'])).toEqual({ '$1,337.00': null, '1,337.00': 1337 });
  });

  it('reads US dollars, accounting parentheses, Swiss apostrophes and Indian grouping', () => {
    expect(read({ locale: 'en-US', currency: true }, ['$1,337.00', '(12.50)', '($12.50)', 'US$ -3', '-$3', 'USD 1,000,000'])).toEqual({
      '$1,337.00': 1337,
      '(12.50)': -12.5,
      '($12.50)': -12.5,
      'US$ -3': -3,
      '-$3': -3,
      'USD 1,000,000': 1000000,
    });
    expect(read({ locale: 'de-CH', currency: true }, ["1'234.56", '1’234.56', "CHF 1'234.50", "EUR-1'234.50"])).toEqual({
      "1'234.56": 1234.56,
      '1’234.56': 1234.56,
      "CHF 1'234.50": 1234.5,
      "EUR-1'234.50": -1234.5,
    });
    expect(read({ locale: 'en-IN', currency: true }, ['12,34,567.8', '₹12,34,567.80', '1,234,567.8', '12,345,67.8'])).toEqual({
      '12,34,567.8': 1234567.8,
      '₹12,34,567.80': 1234567.8,
      '1,234,567.8': 1234567.8,
      '12,345,67.8': null,
    });
  });

  it('reads explicit separators, the other of comma and dot grouping when group is not given', () => {
    expect(read({ decimal: ',' }, ['1.234,56', '1 234,56', '1,5'])).toEqual({ '1.234,56': 1234.56, '1 234,56': 1234.56, '1,5': 1.5 });
    expect(read({ decimal: '.', group: "'" }, ["1'234.56", '1,234.56'])).toEqual({ "1'234.56": 1234.56, '1,234.56': null });
    expect(read({ decimal: ',', group: '' }, ['1234,56', '1.234,56', '1 234,56'])).toEqual({
      '1234,56': 1234.56,
      '1.234,56': null,
      '1 234,56': 1234.56,
    });
  });

  it('reads percentages as fractions when percent is on ("12 %" is 0.12, and so is "12"); refuses the sign otherwise', () => {
    expect(read({ locale: 'fr-FR', percent: true }, ['12 %', '12%', '12', '12,5 %', '-3 %', '100 %'])).toEqual({
      '12 %': 0.12,
      '12%': 0.12,
      '12': 0.12,
      '12,5 %': 0.125,
      '-3 %': -0.03,
      '100 %': 1,
    });
    expect(read({ locale: 'en-US' }, ['12%'])).toEqual({ '12%': null });
    // Digits a double cannot carry are no number, as without percent (they were divided and rounded without a word).
    expect(read({ decimal: ',', percent: true }, ['900719925474099300 %', '9007199254740992 %'])).toEqual({
      '900719925474099300 %': null,
      '9007199254740992 %': 90071992547409.92,
    });
    expect(read({ locale: 'de-DE', percent: true }, ['9.007.199.254.740.993'])).toEqual({ '9.007.199.254.740.993': null });
  });

  it("reads a locale's own digits and right-to-left marks as Intl writes them", () => {
    const egypt = new Intl.NumberFormat('ar-EG', { style: 'currency', currency: 'EGP' }).format(-1234.5);
    const persian = new Intl.NumberFormat('fa').format(-1234567.891);
    expect(read({ locale: 'ar-EG', currency: true }, [egypt, '١٬٢٣٤٫٥', '1234.5'])).toEqual({
      [egypt]: -1234.5,
      '١٬٢٣٤٫٥': 1234.5,
      '1234.5': null,
    });
    expect(read({ locale: 'fa' }, [persian])).toEqual({ [persian]: -1234567.891 });
  });

  it('gives up on a number too large for a double rather than writing Infinity', () => {
    expect(read({ locale: 'en-US' }, ['9'.repeat(400)])).toEqual({ ['9'.repeat(400)]: null });
  });
});

describe('number fields with a number_format', () => {
  const field = (over: Partial<FieldDefinition>): FieldDefinition => ({
    description: '',
    data_type: 'number',
    is_required: false,
    ...over,
  });

  it('types values as numbers and keeps what does not read as it came, a type problem', () => {
    const price = field({ number_format: { locale: 'de-DE', currency: true } });
    expect([typeValue('€ 1.234,56', price), typeValue('1.5', price), typeValue(' ', price)]).toEqual([
      { value: 1234.56, problem: null },
      { value: '1.5', problem: 'type' },
      { value: null, problem: null },
    ]);
    const count = field({ data_type: 'integer', number_format: { locale: 'de-DE' } });
    expect([typeValue('1.234', count), typeValue('1,5', count)]).toEqual([
      { value: 1234, problem: null },
      { value: '1,5', problem: 'type' },
    ]);
  });

  it('leaves number fields without number_format exactly as they were', () => {
    const plain = field({});
    expect([typeValue('1.234,56', plain), typeValue('1e3', plain), typeValue('12.5', plain)]).toEqual([
      { value: '1.234,56', problem: 'type' },
      { value: 1000, problem: null },
      { value: 12.5, problem: null },
    ]);
  });

  it('writes the number with a "." decimal point in text (CSV) output, and the text as read where it is a problem', () => {
    const fields = { price: field({ number_format: { locale: 'de-DE', currency: true } }), plain: field({}) };
    const plan = planFields(fields, { price: 'Preis', plain: 'Zahl' }, ['Preis', 'Zahl']);
    expect(mapRow(['1.234,56 €', '1e3'], 1, plan, false).record).toEqual({ price: '1234.56', plain: '1e3' });
    expect(mapRow(['1.5', '2'], 2, plan, false).record).toEqual({ price: '1.5', plain: '2' });
    expect(mapRow(['1.234,56 €', '1e3'], 1, plan, true).record).toEqual({ price: 1234.56, plain: 1000 });
  });
});
