import fc from 'fast-check';
import type { FieldDefinition } from '@app/contracts';
import { planFields, cellOf } from './map-row';
import { compileNormaliser } from './normalisers';
import { compileTypeCheck, isDecimalNumber } from './typed-value';
import { MAX_FIX_TEXT } from './fix-limits';
import { compileFieldFixes, fixedValueLimit, readValueFix, type AppliedFix } from './value-fixes';

const field = (over: Partial<FieldDefinition> = {}): FieldDefinition => ({
  description: '',
  data_type: 'string',
  is_required: false,
  ...over,
});
const normalise = (
  name: Parameters<typeof compileNormaliser>[0],
  value: string,
  options: { decimal_separator?: ',' | '.'; date_pattern?: string } = {},
) => compileNormaliser(name, { target_pattern: 'yyyy-MM-dd', ...options })(value);

describe('normalisers', () => {
  it.each([
    ['Yes', 'true'],
    [' x ', 'true'],
    ['ACTIVE', 'true'],
    ['Nein', 'false'],
    ['oui', 'true'],
    ['nee', 'false'],
    ['sì', 'true'],
    ['fałsz', 'false'],
    ['نعم', 'true'],
    ['لا', 'false'],
    ['maybe', 'maybe'],
    ['', ''],
  ])('boolean: %j -> %j', (value, expected) => expect(normalise('boolean', value)).toBe(expected));

  it.each([
    ['$712.5', '.', '712.5'],
    ['1,234.50', '.', '1234.50'],
    ['USD 12', '.', '12'],
    ['(12.50)', '.', '-12.50'],
    ['1.234.567', '.', '1234567'],
    ['1.234,50 €', ',', '1234.50'],
    ['12,5', ',', '12.5'],
    ["CHF 1'250.00", ',', '1250.00'],
    ['-3,5', ',', '-3.5'],
    ['N/A', '.', 'N/A'],
    ['12abc', '.', '12abc'],
    ['€ 1.234,56', ',', '1234.56'],
    ['12 %', ',', '12'],
    ['12,5%', ',', '12.5'],
    ['US$ -3', '.', '-3'],
    ['3 zł', ',', '3'],
    ['\u2212 1\u202f234,5', ',', '-1234.5'],
    ['١٬٢٣٤٫٥', ',', '1234.5'],
    ['12 apples', '.', '12 apples'],
    ['ca. 12', '.', 'ca. 12'],
    ['€ 12 $', '.', '€ 12 $'],
  ] as const)('amount: %j (decimal %j) -> %j', (value, decimal, expected) =>
    expect(normalise('amount', value, { decimal_separator: decimal })).toBe(expected),
  );

  it("amount: any amount Intl writes for en-US, de-DE, fr-FR or de-CH reads back as its number, with that locale's separator", () => {
    const locales = [
      ['en-US', 'USD', '.'],
      ['de-DE', 'EUR', ','],
      ['fr-FR', 'EUR', ','],
      ['de-CH', 'CHF', '.'],
    ] as const;
    fc.assert(
      fc.property(
        fc.integer({ min: -99_999_999, max: 99_999_999 }),
        fc.constantFrom(...locales),
        fc.boolean(),
        (cents, [locale, currency, decimal], asCurrency) => {
          const amount = cents / 100;
          const written = new Intl.NumberFormat(locale, asCurrency ? { style: 'currency', currency } : { minimumFractionDigits: 2 }).format(
            amount,
          );
          const read = normalise('amount', written, { decimal_separator: decimal });
          expect({ written, read: Number(read) }).toEqual({ written, read: amount });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("amount on a field with a number_format writes the field's decimal mark, so its check reads the number", () => {
    const price = field({ data_type: 'number', number_format: { locale: 'de-DE' } });
    const fixes: AppliedFix[] = [
      { fix_id: 'f1', field: 'price', fix: { kind: 'normalise', normaliser: 'amount' }, fixed_at: '2026-01-01T00:00:00.000Z' },
    ];
    const [plan] = planFields({ price }, { price: 'Preis' }, ['Preis'], fixes);
    const out = ['€ 1.234,56', '$1,337.00', '12 %', 'N/A'].map((v) => {
      const value = cellOf(plan, [v], 1);
      return [value, plan.check(value).value];
    });
    expect(out).toEqual([
      ['1234,56', 1234.56],
      ['1337,00', 1337],
      ['12', 12],
      ['N/A', 'N/A'],
    ]);
  });

  it('amount: the result is the value unchanged or a plain decimal number', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(..."0123456789.,-+()$€ ABCx'".split('')) }),
        fc.constantFrom(',', '.'),
        (value, decimal) => {
          const out = normalise('amount', value, { decimal_separator: decimal });
          expect(out === value || isDecimalNumber(out)).toBe(true);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['acme.com/contact', 'https://acme.com/contact'],
    ['www.example.org', 'https://www.example.org'],
    ['acme', 'acme'],
    ['http://x.org', 'http://x.org'],
    ['mailto:a@b.org', 'mailto:a@b.org'],
  ])('url: %j -> %j', (value, expected) => expect(normalise('url', value)).toBe(expected));

  it('date: a second pattern is rewritten in the pattern the field delivers; anything else is kept', () => {
    expect(normalise('date', '03.02.1990', { date_pattern: 'dd.MM.yyyy' })).toBe('1990-02-03');
    expect(compileNormaliser('date', { date_pattern: 'd MMM yyyy', target_pattern: 'dd/MM/yyyy' })('3 Feb 1990')).toBe('03/02/1990');
    expect(normalise('date', 'soon', { date_pattern: 'dd.MM.yyyy' })).toBe('soon');
  });

  it('trim', () => expect(normalise('trim', '  a b \u00a0')).toBe('a b'));
});

describe('value fixes', () => {
  const fix = (n: number, f: AppliedFix['fix'], fieldName = 'f'): AppliedFix => ({
    fix_id: `id${n}`,
    field: fieldName,
    fix: f,
    fixed_at: '2026-01-01T00:00:00Z',
  });

  it('a whole-number field refuses "1.000" (a thousand, or one to three places), and the amount fix reads it as the reviewer says', () => {
    const quantity = field({ data_type: 'integer' });
    const check = compileTypeCheck(quantity);
    for (const raw of ['1.000', '-250.000', ' 12.000 ']) expect(check(raw)).toEqual({ value: raw, problem: 'type' });
    // Other whole numbers as before; a decimal field still reads "1.000" as 1.
    expect(check('1000')).toEqual({ value: 1000, problem: null });
    expect(check('2.0')).toEqual({ value: 2, problem: null });
    expect(check('1234.000')).toEqual({ value: 1234, problem: null });
    expect(compileTypeCheck(field({ data_type: 'number' }))('1.000')).toEqual({ value: 1, problem: null });
    // Zero either way; and a workbook's text cell in a field whose number_format groups thousands reads as the locale says.
    expect(check('0.000')).toEqual({ value: 0, problem: null });
    const german = field({ data_type: 'integer', number_format: { locale: 'de-DE' } });
    expect(compileTypeCheck(german, { workbookNumbers: true })('1.000')).toEqual({ value: 1000, problem: null });
    expect(compileTypeCheck(german)('1.000')).toEqual({ value: 1000, problem: null });
    const amount = (decimal: ',' | '.') =>
      compileFieldFixes([fix(1, { kind: 'normalise', normaliser: 'amount', decimal_separator: decimal })], 'f', quantity)!;
    expect(check(amount(',')('1.000', 1))).toEqual({ value: 1000, problem: null });
    expect(check(amount('.')('1.000', 1))).toEqual({ value: 1, problem: null });
    // Only a whole-number field loses the zeros: an amount keeps its cents.
    const price = compileFieldFixes(
      [fix(1, { kind: 'normalise', normaliser: 'amount', decimal_separator: '.' })],
      'f',
      field({ data_type: 'number' }),
    )!;
    expect(price('1250.00', 1)).toBe('1250.00');
  });

  it('costs nothing for a field without fixes', () => {
    expect(compileFieldFixes([fix(1, { kind: 'replace', find: 'a', replace: 'b', whole_value: false }, 'other')], 'f', field())).toBeNull();
  });

  it('applies fixes in the order they were made; a cell edit only where its row still reads its "before"', () => {
    const apply = compileFieldFixes(
      [
        fix(1, { kind: 'cell', row: 2, before: 'x', after: 'y' }),
        fix(2, { kind: 'replace', find: 'y', replace: 'z', whole_value: true }),
        fix(3, { kind: 'cell', row: 2, before: 'z', after: 'w' }),
        fix(4, { kind: 'cell', row: 3, before: 'not this', after: 'never' }),
      ],
      'f',
      field(),
    )!;
    expect(apply('x', 2)).toBe('w'); // x -> y (cell) -> z (replace) -> w (cell, saw z)
    expect(apply('x', 1)).toBe('x');
    expect(apply('y', 1)).toBe('z');
    expect(apply('q', 3)).toBe('q');
  });

  it("gives a fixed value the field's text rules (trim, case) but not its date_format again", () => {
    const upper = compileFieldFixes(
      [fix(1, { kind: 'cell', row: 1, before: 'BOB', after: ' Robert ' })],
      'f',
      field({ transformations: { uppercase: { enabled: true }, trim_whitespace: { enabled: true } } }),
    )!;
    expect(upper('BOB', 1)).toBe('ROBERT');
    const dates = compileFieldFixes(
      [fix(1, { kind: 'cell', row: 1, before: '1990-01-02', after: '03/01/1990' })],
      'f',
      field({ transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'MM/dd/yyyy' } } }),
    )!;
    expect(dates('1990-01-02', 1)).toBe('03/01/1990');
  });

  it('a second edit of a cell sees the value as the page showed it (after the text rules)', () => {
    const upper = field({ transformations: { uppercase: { enabled: true } } });
    const apply = compileFieldFixes(
      [fix(1, { kind: 'cell', row: 1, before: 'BAD', after: 'xx' }), fix(2, { kind: 'cell', row: 1, before: 'XX', after: 'yy' })],
      'f',
      upper,
    )!;
    expect(apply('BAD', 1)).toBe('YY');
  });

  it('an edit made on a blank cell ("") applies to a value of blanks, as the page shows it empty', () => {
    const apply = compileFieldFixes([fix(1, { kind: 'cell', row: 1, before: '', after: 'a@x.org' })], 'f', field())!;
    expect(apply('   ', 1)).toBe('a@x.org');
    expect(apply('b@x.org', 1)).toBe('b@x.org');
  });

  it('a datetime keeps its time when the date normaliser rewrites it', () => {
    const dt = field({ data_type: 'datetime' });
    const apply = compileFieldFixes([fix(1, { kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy HH:mm' }, 'f')], 'f', dt)!;
    expect(apply('03.02.1990 14:30', 1)).toBe('1990-02-03T14:30:00');
  });

  it('replace finds text inside values unless whole_value', () => {
    const inside = compileFieldFixes([fix(1, { kind: 'replace', find: 'N/A', replace: '', whole_value: false })], 'f', field())!;
    expect(inside('N/A or N/A', 1)).toBe(' or ');
    const whole = compileFieldFixes([fix(1, { kind: 'replace', find: 'N/A', replace: '', whole_value: true })], 'f', field())!;
    expect(whole('N/A or N/A', 1)).toBe('N/A or N/A');
    // The whole value as the page shows it, without the blanks around it (a probe: " A1 " stayed, unsaid, beside "A1").
    expect(whole(' N/A ', 1)).toBe('');
    expect(whole('\tN/A', 1)).toBe('');
    // Blanks alone are matched as typed: a find of one space is not every blank value.
    const space = compileFieldFixes([fix(1, { kind: 'replace', find: ' ', replace: '-', whole_value: true })], 'f', field())!;
    expect(space(' ', 1)).toBe('-');
    expect(space('', 1)).toBe('');
    expect(space('  ', 1)).toBe('  ');
  });

  it('a chain of replaces cannot grow a value past ten times its length (or MAX_FIX_TEXT): that step leaves it as it was', () => {
    const thousand = 'a'.repeat(1000);
    const grow = fix(1, { kind: 'replace', find: 'a', replace: thousand, whole_value: false });
    const chained = compileFieldFixes([grow, { ...grow, fix_id: 'id2' }, { ...grow, fix_id: 'id3' }], 'f', field())!;
    // The first step makes 1,000 characters; the second would make 1,000,000, so it and the third leave those 1,000.
    expect(chained('a', 1)).toBe(thousand);
    expect(chained('xa', 1)).toBe(`x${thousand}`);
    // Up to the limit it applies (MAX_FIX_TEXT for short values, ten times the value for long ones); shrinking always does.
    const double = compileFieldFixes([fix(1, { kind: 'replace', find: 'b', replace: 'bb', whole_value: false })], 'f', field())!;
    expect(double('b'.repeat(MAX_FIX_TEXT / 2), 1)).toHaveLength(MAX_FIX_TEXT);
    expect(double('b'.repeat(MAX_FIX_TEXT / 2 + 1), 1)).toHaveLength(MAX_FIX_TEXT + 2);
    const tenfold = compileFieldFixes([fix(1, { kind: 'replace', find: 'b', replace: 'b'.repeat(11), whole_value: false })], 'f', field())!;
    expect(tenfold('b'.repeat(MAX_FIX_TEXT), 1)).toHaveLength(MAX_FIX_TEXT);
    expect(fixedValueLimit('b'.repeat(MAX_FIX_TEXT))).toBe(10 * MAX_FIX_TEXT);
    const shrink = compileFieldFixes([fix(1, { kind: 'replace', find: 'bb', replace: 'b', whole_value: false })], 'f', field())!;
    expect(shrink('b'.repeat(40 * MAX_FIX_TEXT), 1)).toHaveLength(20 * MAX_FIX_TEXT);
  });

  it("runs after the field's transformations and before its check, through planFields and cellOf", () => {
    const fields = { amount: field({ data_type: 'number', transformations: { trim_whitespace: { enabled: true } } }) };
    const [plan] = planFields(fields, { amount: 'A' }, ['A'], [fix(1, { kind: 'normalise', normaliser: 'amount' }, 'amount')]);
    const value = cellOf(plan, ['  $1,200.50 '], 1);
    expect(value).toBe('1200.50');
    expect(plan.check(value)).toEqual({ value: 1200.5, problem: null });
  });

  it("reads a reviewer's fix or says what is wrong with it", () => {
    expect(readValueFix({ kind: 'cell', row: 2, before: 'a', after: 'b' }, 10)).toEqual({
      fix: { kind: 'cell', row: 2, before: 'a', after: 'b' },
    });
    expect(readValueFix({ kind: 'normalise', normaliser: 'amount', decimal_separator: ',' }, null)).toEqual({
      fix: { kind: 'normalise', normaliser: 'amount', decimal_separator: ',' },
    });
    expect(readValueFix({ kind: 'cell', row: 11, before: 'a', after: 'b' }, 10)).toEqual({
      problems: ["row must be a data row's number, from 1 to 10."],
    });
    expect(readValueFix({ kind: 'normalise', normaliser: 'shout' }, null)).toEqual({
      problems: ['normaliser must be one of trim, boolean, amount, url, date.'],
    });
    const notes = { description: 'notes', data_type: 'string', is_required: false } as const;
    const born = { description: 'born', data_type: 'date', is_required: false } as const;
    expect(readValueFix({ kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' }, null, notes)).toEqual({
      problems: ['The date normaliser does not suit a field of data_type "string"; it offers trim.'],
    });
    expect(readValueFix({ kind: 'normalise', normaliser: 'amount' }, null, born)).toEqual({
      problems: ['The amount normaliser does not suit a field of data_type "date"; it offers date, trim.'],
    });
    expect(readValueFix({ kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' }, null, born)).toEqual({
      fix: { kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' },
    });
    expect(readValueFix({ kind: 'normalise', normaliser: 'trim' }, null, notes)).toEqual({
      fix: { kind: 'normalise', normaliser: 'trim' },
    });
    // A data_type is any text a schema gives, the names of Object's own properties too.
    for (const dataType of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
      expect(readValueFix({ kind: 'normalise', normaliser: 'trim' }, null, { ...notes, data_type: dataType })).toEqual({
        fix: { kind: 'normalise', normaliser: 'trim' },
      });
    expect(readValueFix({ kind: 'replace', find: 'a', replace: 'x'.repeat(10_001) }, null)).toEqual({
      problems: ['replace must be text of at most 10000 characters.'],
    });
    expect(readValueFix('nonsense', null)).toEqual({
      problems: [
        'kind must be "cell", "replace", "normalise" or "picklist" (or, without a field, "leave_out", "put_back", "leave_out_hidden" or "put_back_hidden").',
      ],
    });
  });
});
