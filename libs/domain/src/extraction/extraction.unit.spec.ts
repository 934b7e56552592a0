import type { FieldDefinition } from '@app/contracts';
import { typeValue } from '../fields/typed-value';
import { applyTransformations } from '../fields/transformations';
import { UnusableAnswer, rowsFromExtraction } from './extracted-records';
import { imageMatchesExtension, imageMediaTypeOf } from './image-content';
import { checkSuggestedMapping, mergeSuggestions } from './mapping-suggestion';
import { syntheticRows } from './synthetic-records';
import { planFields } from '../fields/map-row';
import fc from 'fast-check';
import { inTimeZone } from '../testing/in-time-zone';

const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'Email', data_type: 'email', is_required: true },
  age: { description: 'Age', data_type: 'integer', is_required: false },
  score: { description: 'Score', data_type: 'number', is_required: false },
  active: { description: 'Active', data_type: 'boolean', is_required: false },
  site: { description: 'Site', data_type: 'url', is_required: false },
  born: {
    description: 'Born',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
  },
  seen: { description: 'Seen', data_type: 'date', is_required: false, format: 'MM/dd/yyyy' },
  note: { description: 'Note', data_type: 'string', is_required: true, label: 'Remark' },
};

describe('extracted records', () => {
  it('takes one cell per field in schema order; numbers and booleans as text, null and missing as empty; unknown keys ignored', () => {
    expect(
      rowsFromExtraction({ records: [{ age: 3, email: 'a@b.c', active: true, extra: 'x' }] }, ['email', 'age', 'active', 'note']),
    ).toEqual([['a@b.c', '3', 'true', '']]);
  });

  it('leaves out records with no value at all, so every row counted is a row review and output read', () => {
    const answer = {
      records: [{ email: null, age: null }, { email: 'a@b.c', age: null }, { email: '  ', age: '' }, { email: '', age: 0 }, {}],
    };
    expect(rowsFromExtraction(answer, ['email', 'age'])).toEqual([
      ['a@b.c', ''],
      ['', '0'],
    ]);
    expect(rowsFromExtraction({ records: [{ email: null }, { email: ' ' }] }, ['email'])).toEqual([]);
  });

  it.each([
    [null, 'no "records" array'],
    [{ rows: [] }, 'no "records" array'],
    [{ records: ['x'] }, 'not an object'],
    [{ records: [{ email: { nested: 1 } }] }, 'neither text'],
  ])('refuses an unusable answer %j', (answer, why) => {
    expect(() => rowsFromExtraction(answer, ['email'])).toThrow(UnusableAnswer);
    expect(() => rowsFromExtraction(answer, ['email'])).toThrow(why);
  });
});

describe('AI mapping suggestion', () => {
  const fields = ['email', 'name', 'age'];
  const headers = ['Mail', 'Full name', 'Years'];

  it('keeps known fields mapped to existing headers once, and says what it dropped', () => {
    const checked = checkSuggestedMapping({ mapping: { email: 'Mail', name: 'Mail', age: 7, phone: 'Years', zip: null } }, fields, headers);
    expect(checked.mapping).toEqual({ email: 'Mail' });
    expect(checked.dropped).toEqual([
      '"name": header "Mail" already used',
      '"age": not a header name',
      'unknown field "phone"',
      'unknown field "zip"',
    ]);
    expect(checkSuggestedMapping('nonsense', fields, headers)).toEqual({ mapping: {}, dropped: ['the answer has no "mapping" object'] });
  });

  it('merges: the suggestion where it named a header, the heuristic elsewhere unless its header is taken', () => {
    expect(mergeSuggestions({ email: 'Full name', age: null }, { email: 'Mail', name: 'Full name', age: 'Years' })).toEqual({
      email: 'Full name',
      name: null,
      age: 'Years',
    });
  });
});

describe('synthetic records of dry runs', () => {
  it('are written in ISO for a date pattern stored before patterns were checked (none date-fns can write)', () => {
    const stored = { d: { description: '', data_type: 'date', is_required: false, format: 'gibberish' } };
    expect(syntheticRows(stored)[0]).toEqual(['2024-01-15']);
  });

  it('are the same for the same schema and pass every field check after transformations', () => {
    const rows = syntheticRows(FIELDS);
    expect(syntheticRows(FIELDS)).toEqual(rows);
    expect(rows).toHaveLength(10);
    const names = Object.keys(FIELDS);
    for (const row of rows) {
      names.forEach((name, i) => {
        const value = applyTransformations(row[i], FIELDS[name]);
        expect({ name, value, problem: typeValue(value, FIELDS[name]).problem }).toEqual({ name, value, problem: null });
      });
    }
    expect(rows[0][names.indexOf('born')]).toBe('15/01/2024');
    expect(rows[1][names.indexOf('seen')]).toBe('01/16/2024');
    expect(rows[0][names.indexOf('note')]).toBe('Remark 1');
  });
});

describe('synthetic records pass the checks a schema adds (found by a probe: "phone 1", "en 1", "1" under min 5)', () => {
  const field = (data_type: string, more: Partial<FieldDefinition> = {}): FieldDefinition => ({
    description: '',
    data_type,
    is_required: true,
    ...more,
  });
  const problemsOf = (fields: Record<string, FieldDefinition>) => {
    const plan = planFields(fields, Object.fromEntries(Object.keys(fields).map((k) => [k, k])), Object.keys(fields));
    return syntheticRows(fields).flatMap((row, i) =>
      plan.flatMap((p, c) => {
        const problem = p.check(p.transform(row[c])).problem;
        return problem === null ? [] : [{ field: p.name, row: i + 1, cell: row[c], problem }];
      }),
    );
  };

  it('phone, country, picklist, number formats, ranges and lengths', () => {
    const fields: Record<string, FieldDefinition> = {
      phone_de: field('phone', { default_region: 'DE' }),
      phone_any: field('phone'),
      country_alpha3: field('country', { country_format: 'alpha3' }),
      country_name: field('country', { country_format: 'name', pattern: '^[A-Z]{2}$' }),
      tier: field('enum', { allowed_values: [{ value: 'gold' }, { value: 'silver' }] }),
      amount_de: field('number', { number_format: { locale: 'de-DE', currency: true } }),
      grouped: field('number', { number_format: { decimal: ',', group: '.' } }),
      share: field('number', { number_format: { percent: true }, min: 0.1, max: 0.5 }),
      at_least_five: field('integer', { min: 5, max: 7 }),
      negative: field('integer', { max: -100 }),
      narrow: field('number', { min: 2.5, max: 2.6 }),
      code: field('string', { min_length: 12, max_length: 14 }),
      short: field('string', { max_length: 3 }),
      day: field('date', { format: 'dd.MM.yyyy', min: '2030-02-01', max: '2030-02-04' }),
      before: field('datetime', { max: '2001-01-01' }),
    };
    expect(problemsOf(fields)).toEqual([]);
    const rows = syntheticRows(fields);
    const column = (name: string) => rows.map((row) => row[Object.keys(fields).indexOf(name)]);
    expect(new Set(column('phone_de')).size).toBe(10);
    expect(column('tier').slice(0, 3)).toEqual(['gold', 'silver', 'gold']);
    expect(column('at_least_five').slice(0, 4)).toEqual(['5', '6', '7', '5']);
    expect(column('day').slice(0, 5)).toEqual(['01.02.2030', '02.02.2030', '03.02.2030', '04.02.2030', '01.02.2030']);
  });

  it('read date bounds as written, whatever the time zone of the process', () => {
    const fields = {
      at: field('datetime', { min: '2030-02-01T10:00:00', max: '2030-02-01T12:00:00' }),
      day: field('date', { format: 'dd.MM.yyyy', min: '2030-02-01T12:00:00' }),
      phone: field('phone', { max_length: 12 }),
    };
    // problemsOf above, run in another process: a test cannot change its own time zone (in-time-zone.ts).
    const problemsThere = `(() => {
      const names = Object.keys(input);
      const plan = m.plan.planFields(input, Object.fromEntries(names.map((k) => [k, k])), names);
      return m.synthetic.syntheticRows(input).flatMap((row) =>
        plan.flatMap((p, c) => (p.check(p.transform(row[c])).problem === null ? [] : [{ field: p.name, cell: row[c] }])),
      );
    })()`;
    const modules = { plan: `${__dirname}/../fields/map-row.ts`, synthetic: `${__dirname}/synthetic-records.ts` };
    for (const tz of ['America/Los_Angeles', 'Asia/Tokyo', 'UTC']) {
      const rows = inTimeZone<unknown[]>(tz, modules, problemsThere, fields);
      expect({ tz, problems: rows }).toEqual({ tz, problems: [] });
    }
  });

  it('for any number field with a satisfiable range, in any of several formats', () => {
    const locales = [undefined, 'de-DE', 'en-US', 'fr-FR', 'de-CH', 'ar-EG', 'hi-IN'];
    fc.assert(
      fc.property(
        fc.constantFrom('integer', 'number'),
        fc.constantFrom(...locales),
        fc.boolean(),
        fc.option(fc.integer({ min: -10_000, max: 10_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
        (data_type, locale, percent, min, width) => {
          // A max alone too (width read as the max), and fractional bounds an integer field must round inside.
          const max = width === undefined ? undefined : min !== undefined ? min + width : width / 7 - 30;
          const number_format = locale || percent ? { ...(locale ? { locale } : {}), ...(percent ? { percent } : {}) } : undefined;
          const f = field(data_type, { number_format, min, max });
          const satisfiable = data_type === 'number' || max === undefined || Math.floor(max) >= Math.ceil(min ?? -Infinity);
          if (satisfiable) expect(problemsOf({ f })).toEqual([]);
          // Ten different values wherever the range holds ten.
          const values = new Set(syntheticRows({ f }).map(([v]) => v));
          if (max === undefined || min === undefined || max - min >= 10) expect(values.size).toBe(10);
        },
      ),
    );
  });
});

describe('image content', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
  const webp = Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1');

  it.each([
    ['png', png, true],
    ['PNG', png, true],
    ['jpg', jpeg, true],
    ['jpeg', jpeg, true],
    ['webp', webp, true],
    ['png', jpeg, false],
    ['jpg', webp, false],
    ['webp', Buffer.from('%PDF-1.7'), false],
    ['png', Buffer.alloc(0), false],
    ['gif', png, false],
  ])('.%s with these bytes matches: %p', (ext, bytes, ok) => expect(imageMatchesExtension(ext, bytes as Buffer)).toBe(ok));

  it('names the media type the bytes are', () => {
    expect(imageMediaTypeOf(jpeg)).toBe('image/jpeg');
    expect(imageMediaTypeOf(Buffer.from('PK\x03\x04', 'latin1'))).toBeNull();
  });
});
