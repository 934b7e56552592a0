import type { Field } from './page/types';

// The page's catalog comes from the document; here each message is its key, so the test reads which one was chosen.
jest.mock('./page/i18n', () => ({
  t: (key: string, params?: Record<string, unknown>) => (typeof params?.value === 'string' ? `${key}:${params.value}` : key),
  isolate: (text: string) => text,
  numbers: new Intl.NumberFormat('en'),
  typeName: (dataType: string) => dataType,
}));

// eslint-disable-next-line @typescript-eslint/no-require-imports -- after the mock above
const { problemWords } = require('./page/problem-words') as typeof import('./page/problem-words');

const field = (data_type: string, extra: Partial<Field> = {}): Field =>
  ({ description: '', data_type, is_required: false, ...extra }) as Field;

describe('the words of a type problem', () => {
  it.each([
    ['integer', '100000000000000001', 'problem_number_digits'],
    ['integer', '-9007199254740993', 'problem_number_digits'],
    ['number', '12345678901234567', 'problem_number_digits'],
    // Failing for its shape, not its size (a review's findings): the general words.
    ['number', '12.345.678.901.234.567', 'problem_type'],
    ['integer', '1234567890123456.5', 'problem_type'],
    ['number', '1,234,567,890,123,456', 'problem_type'],
    ['integer', '000000000000000012', 'problem_type'],
    ['integer', '12abc', 'problem_type'],
    // Sixteen digits and a letter: a typo, not a long number.
    ['integer', '1234567890123456x', 'problem_type'],
    ['integer', '1.5', 'problem_type'],
    ['string', '100000000000000001', 'problem_type'],
  ])('%s %s: %s', (dataType, value, key) => {
    expect(problemWords('type', field(dataType), value)).toBe(key);
  });
});

describe('the words of a date not written as its field reads them', () => {
  it("name the pattern the field checks, with the value's type; without one, the general words", () => {
    expect(problemWords('type', field('date', { date_pattern: 'dd.MM.yyyy' }), '1985-13-40')).toBe('problem_date_pattern');
    expect(problemWords('type', field('datetime', { date_pattern: "yyyy-MM-dd'T'HH:mm" }), 'x')).toBe('problem_date_pattern');
    expect(problemWords('type', field('date'), 'not a date')).toBe('problem_type');
  });
});

describe('the words of a value not allowed', () => {
  const tiers = field('enum', {
    allowed_values: [
      { value: 'gold', label: 'Gold' },
      { value: 'SLV', label: 'Silver' },
    ],
  });
  it.each([
    // Its label, or the value in another case: the value to write is named.
    ['Gold', 'problem_enum_use:gold'],
    [' silver ', 'problem_enum_use:SLV'],
    ['slv', 'problem_enum_use:SLV'],
    // Anything else: the general words (the picklist panel suggests close spellings).
    ['Golden', 'problem_enum'],
    ['', 'problem_enum'],
  ])('%j: %s', (value, key) => {
    expect(problemWords('type', tiers, value)).toBe(key);
  });
});
