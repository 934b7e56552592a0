import fc from 'fast-check';
import { RE2JS } from 're2js';
import type { FieldDefinition } from '@app/contracts';
import { CELL_PROBLEMS } from './cell-problems';
import {
  codePointLength,
  compileFieldCheck,
  patternProblem,
  uniquenessGroups,
  validateFieldValidators,
  validateUniqueWith,
} from './field-validators';
import { inTimeZone } from '../testing/in-time-zone';

const field = (data_type: string, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  description: '',
  data_type,
  is_required: false,
  ...extra,
});
const problemOf = (f: FieldDefinition, raw: string) => compileFieldCheck(f)(raw).problem;

describe('pattern', () => {
  const code = field('string', { pattern: '^[A-Z]{2}-\\d{3}$' });

  it('reports a value that does not match, and passes one that does', () => {
    expect(problemOf(code, 'AB-123')).toBeNull();
    expect(problemOf(code, ' AB-123 ')).toBeNull(); // surrounding whitespace is not part of the value checked
    expect(problemOf(code, 'ab-123')).toBe('pattern');
    expect(problemOf(code, 'AB-1234')).toBe('pattern');
  });

  it('matches anywhere in the value unless anchored, as JSON Schema patterns do', () => {
    expect(problemOf(field('string', { pattern: '\\d{3}' }), 'room 101, floor 1')).toBeNull();
    expect(problemOf(field('string', { pattern: '\\d{3}' }), 'room 10')).toBe('pattern');
  });

  it('leaves an empty value to is_required', () => {
    expect(problemOf(code, '')).toBeNull();
    expect(problemOf({ ...code, is_required: true }, '  ')).toBe('required');
  });

  it('comes after the type check: a value of the wrong type is a type problem', () => {
    expect(problemOf(field('email', { pattern: '@acme\\.example$' }), 'not an address')).toBe('type');
    expect(problemOf(field('email', { pattern: '@acme\\.example$' }), 'ada@other.example')).toBe('pattern');
  });

  it('refuses, with a reason, patterns that can backtrack catastrophically or that RE2 cannot run', () => {
    expect(patternProblem('(a+)+$')).toMatch(/backtrack catastrophically/);
    expect(patternProblem('(x+x+)+y')).toMatch(/backtrack catastrophically/);
    expect(patternProblem('(\\w+)\\1')).toMatch(/RE2 accepts .*backreferences/);
    expect(patternProblem('(?=a)b')).toMatch(/lookaround/);
    expect(patternProblem('[a-')).toMatch(/RE2 accepts/);
    expect(patternProblem('(?i)abc')).toMatch(/syntax RE2 and JavaScript share/);
    expect(patternProblem('')).toMatch(/non-empty string/);
    expect(patternProblem(42)).toMatch(/non-empty string/);
    expect(patternProblem('a'.repeat(1001))).toMatch(/longer than 1000/);
    expect(patternProblem('^[A-Z]{2}-\\d{3}$')).toBeNull();
    expect(patternProblem('^\\p{L}+$')).toBeNull();
  });
});

describe('pattern verdicts remembered per value', () => {
  // Values the remembered verdicts must agree with RE2 on: few values repeated (remembered), many new ones (the memory
  // turns itself off), long ones (never remembered), and texts cut from a longer one, as the reader's cells are.
  const few = fc.constantFrom('AB-123', 'ab-123', 'AB-1234', 'ZZ-000', 'ü-123', 'AB-12');
  const many = fc.stringMatching(/^[A-Zab]{2}-\d{2,4}$/);
  const long = fc.string({ minLength: 65, maxLength: 90 }).map((s) => `AB-123${s}`);
  const cut = fc.tuple(many, fc.string({ maxLength: 5 })).map(([v, pad]) => `${pad}${v}${pad}`.slice(pad.length, pad.length + v.length));
  const value = fc.oneof({ arbitrary: few, weight: 3 }, many, long, cut);

  it('decides each value as RE2 does, in any order and however often values repeat', () => {
    fc.assert(
      fc.property(fc.constantFrom('^[A-Z]{2}-\\d{3}$', '\\d{3}', '^[^a-z]+$'), fc.array(value, { maxLength: 400 }), (pattern, values) => {
        const re = RE2JS.compile(pattern);
        const check = compileFieldCheck(field('string', { pattern }));
        for (const v of values) expect(check(v).problem).toBe(re.test(v.trim()) ? null : 'pattern');
      }),
      { numRuns: 60 },
    );
  });

  it('still decides as RE2 does after a long run of new values has turned the memory off', () => {
    const re = RE2JS.compile('^[A-Z]{2}-\\d{3}$');
    const check = compileFieldCheck(field('string', { pattern: '^[A-Z]{2}-\\d{3}$' }));
    const values = [...Array.from({ length: 20_000 }, (_, i) => `AB-${i}`), 'AB-123', 'AB-123', 'ab-123', 'AB-12'];
    expect(values.map((v) => check(v).problem)).toEqual(values.map((v) => (re.test(v) ? null : 'pattern')));
  });
});

describe('min and max', () => {
  it('bound numbers and integers', () => {
    const age = field('integer', { min: 18, max: 120 });
    expect(problemOf(age, '18')).toBeNull();
    expect(problemOf(age, '120')).toBeNull();
    expect(problemOf(age, '17')).toBe('range');
    expect(problemOf(age, '121')).toBe('range');
    expect(problemOf(age, '18.5')).toBe('type');
    expect(problemOf(field('number', { min: -1.5 }), '-1.6')).toBe('range');
    expect(problemOf(field('number', { max: 0 }), '0.0')).toBeNull();
  });

  it('keep a value of the right type typed in the output, with its problem beside it', () => {
    expect(compileFieldCheck(field('integer', { max: 10 }))('11')).toEqual({ value: 11, problem: 'range' });
  });

  it('bound dates written in ISO 8601, the values read in the field format or ISO', () => {
    const due = field('date', { format: 'dd/MM/yyyy', min: '2024-01-01', max: '2024-12-31' });
    expect(problemOf(due, '01/01/2024')).toBeNull();
    expect(problemOf(due, '31/12/2024')).toBeNull();
    expect(problemOf(due, '31/12/2023')).toBe('range');
    expect(problemOf(due, '2025-01-01')).toBe('range');
    expect(problemOf(due, '2024-06-15')).toBeNull();
    // A date-only max takes its whole day for date-times.
    const at = field('datetime', { min: '2024-01-01T08:00:00', max: '2024-01-31' });
    expect(problemOf(at, '2024-01-31T23:00:00')).toBeNull();
    expect(problemOf(at, '2024-02-01T00:00:00')).toBe('range');
    expect(problemOf(at, '2024-01-01T07:59:59')).toBe('range');
  });

  it('read a bound or a value with a zone (Z, an offset) in UTC, and one without as written, whatever the time zone of the process', () => {
    const cases = [
      // 2024-01-31T23:30:00-05:00 is 04:30 on 1 February in UTC: after a max of 31 January in every zone.
      { field: field('datetime', { max: '2024-01-31' }), value: '2024-01-31T23:30:00-05:00', problem: 'range' },
      { field: field('datetime', { max: '2024-01-31' }), value: '2024-01-31T23:30:00Z', problem: null },
      { field: field('datetime', { max: '2024-01-31' }), value: '2024-01-31T23:30:00', problem: null },
      // A bound with a zone: 10:00+02:00 is 08:00 UTC.
      { field: field('datetime', { min: '2024-03-01T10:00:00+02:00' }), value: '2024-03-01T07:59:59Z', problem: 'range' },
      { field: field('datetime', { min: '2024-03-01T10:00:00+02:00' }), value: '2024-03-01T08:00:00', problem: null },
      // A space before the time, as PostgreSQL writes a timestamptz.
      { field: field('datetime', { max: '2024-01-31' }), value: '2024-01-31 23:30:00-05:00', problem: 'range' },
      { field: field('datetime', { max: '2024-01-31' }), value: '2024-01-31 23:30:00+00', problem: null },
      // A field format with an offset token.
      {
        field: field('datetime', { format: 'dd/MM/yyyy HH:mm XXX', max: '2024-01-31' }),
        value: '31/01/2024 23:30 -05:00',
        problem: 'range',
      },
      // In New York's daylight-saving gap: as written, not moved an hour on.
      { field: field('datetime', { max: '2024-03-10T02:30:00' }), value: '2024-03-10T02:30:00', problem: null },
    ];
    const expected = cases.map((c) => c.problem);
    for (const tz of ['America/Los_Angeles', 'America/New_York', 'Asia/Tokyo', 'Europe/Berlin', 'UTC']) {
      const problems = inTimeZone(
        tz,
        { validators: `${__dirname}/field-validators.ts` },
        'input.map((c) => m.validators.compileFieldCheck(c.field)(c.value).problem)',
        cases,
      );
      expect({ tz, problems }).toEqual({ tz, problems: expected });
    }
  });
});

describe('min and max on yyyy-MM-dd days', () => {
  // The days are compared by arithmetic on their digits: against the order of the ISO texts themselves.
  const day = fc
    .date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10))
    .filter((d) => /^\d{4}-/.test(d));

  it('reports a day before min or after max (a date-only max takes its whole day), and only those', () => {
    fc.assert(
      fc.property(day, day, day, (value, a, b) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        const expected = value < min || value > max ? 'range' : null;
        expect(problemOf(field('date', { min, max }), value)).toBe(expected);
        expect(problemOf(field('datetime', { min: `${min}T00:00:00`, max }), value)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe("min and max on a date in the field's own pattern", () => {
  it('reads a value in the pattern first, also one that looks like yyyy-MM-dd (2024-01-05 under yyyy-dd-MM is 1 May)', () => {
    const may = { min: '2024-04-01', max: '2024-05-31' };
    expect(problemOf(field('date', { format: 'yyyy-dd-MM', ...may }), '2024-01-05')).toBeNull();
    expect(problemOf(field('date', { format: 'yyyy-dd-MM', ...may }), '2024-05-01')).toBe('range');
    const rewritten = field('date', { ...may, transformations: { date_format: { enabled: true, to: 'yyyy-dd-MM' } } });
    expect(problemOf(rewritten, '2024-01-05')).toBeNull();
    // Without a pattern of its own, or with yyyy-MM-dd, the day is the ISO day.
    expect(problemOf(field('date', may), '2024-01-05')).toBe('range');
    expect(problemOf(field('date', { format: 'yyyy-MM-dd', ...may }), '2024-05-01')).toBeNull();
  });
});

describe('min_length and max_length', () => {
  it('count characters as code points', () => {
    const name = field('string', { min_length: 2, max_length: 5 });
    expect(problemOf(name, 'Al')).toBeNull();
    expect(problemOf(name, 'A')).toBe('length');
    expect(problemOf(name, 'Alexandra')).toBe('length');
    expect(codePointLength('👍🏽ab')).toBe(4);
    expect(problemOf(name, '😀😀😀😀😀')).toBeNull(); // five characters, ten UTF-16 units
    expect(problemOf(name, 'ÅÅÅÅÅÅ')).toBe('length');
  });
});

describe('schema checks of the validators', () => {
  const problems = (def: Record<string, unknown>) => validateFieldValidators({ description: '', is_required: false, ...def });

  it('accepts well-formed validators', () => {
    expect(problems({ data_type: 'string', pattern: '^\\d+$', min_length: 1, max_length: 9, unique: true })).toEqual([]);
    expect(problems({ data_type: 'number', min: 0, max: 1.5 })).toEqual([]);
    expect(problems({ data_type: 'date', min: '2024-01-01', max: '2024-12-31T12:00:00' })).toEqual([]);
  });

  it('refuses each malformed one with its path and a reason', () => {
    expect(problems({ data_type: 'string', pattern: '(a+)+$' })).toEqual([
      { at: 'pattern', problem: expect.stringMatching(/catastrophically/) },
    ]);
    expect(problems({ data_type: 'string', min: 1 })).toEqual([
      { at: 'min', problem: expect.stringMatching(/number, integer, date and datetime/) },
    ]);
    expect(problems({ data_type: 'number', max: '10' })).toEqual([{ at: 'max', problem: 'max must be a finite number.' }]);
    expect(problems({ data_type: 'date', min: '31/12/2024' })).toEqual([{ at: 'min', problem: expect.stringMatching(/ISO 8601/) }]);
    expect(problems({ data_type: 'number', min: 5, max: 1 })).toEqual([{ at: 'min', problem: 'min must not be greater than max.' }]);
    expect(problems({ data_type: 'string', min_length: -1, max_length: 2.5 }).map((p) => p.at)).toEqual(['min_length', 'max_length']);
    expect(problems({ data_type: 'string', min_length: 3, max_length: 2 })).toEqual([
      { at: 'min_length', problem: 'min_length must not be greater than max_length.' },
    ]);
    expect(problems({ data_type: 'string', unique: 'yes' })).toEqual([{ at: 'unique', problem: 'unique must be true or false.' }]);
  });

  it('checks unique_with against the schema fields', () => {
    const names = ['first', 'last', 'email'];
    expect(validateUniqueWith([['first', 'last']], names)).toEqual([]);
    expect(validateUniqueWith(undefined, names)).toEqual([]);
    expect(validateUniqueWith('first', names)).toEqual([{ at: 'unique_with', problem: expect.stringMatching(/list of lists/) }]);
    expect(validateUniqueWith([['first']], names)).toEqual([{ at: 'unique_with.0', problem: expect.stringMatching(/two or more/) }]);
    expect(
      validateUniqueWith(
        [
          ['first', 'last'],
          ['first', 'phone'],
        ],
        names,
      ),
    ).toEqual([{ at: 'unique_with.1', problem: 'The schema has no field named "phone".' }]);
    expect(validateUniqueWith([['first', 'first']], names)).toEqual([{ at: 'unique_with.0', problem: expect.stringMatching(/only once/) }]);
  });

  it('lists the groups the duplicates pass looks for: unique fields alone, then the unique_with sets', () => {
    const fields = { id: field('string', { unique: true }), first: field('string'), last: field('string') };
    expect(uniquenessGroups({ fields, unique_with: [['first', 'last']] })).toEqual([['id'], ['first', 'last']]);
    expect(uniquenessGroups({ fields })).toEqual([['id']]);
  });
});

it('declares every kind of problem the checks can give', () => {
  expect(CELL_PROBLEMS).toEqual(['required', 'type', 'pattern', 'range', 'length', 'unique', 'customer']);
});
