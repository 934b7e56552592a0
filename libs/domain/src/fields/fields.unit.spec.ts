import type { FieldDefinition } from '@app/contracts';
import { applyTransformations, validateTransformations } from './transformations';
import { compileTypeCheck, typeValue } from './typed-value';
import { inTimeZone } from '../testing/in-time-zone';

const f = (over: Partial<FieldDefinition> = {}): FieldDefinition => ({ description: '', data_type: 'string', is_required: false, ...over });

describe('applyTransformations', () => {
  it('applies trim, date_format, uppercase in a fixed order', () => {
    const field = f({
      transformations: {
        uppercase: { enabled: true },
        date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MMM-dd' },
        trim_whitespace: { enabled: true },
      },
    });
    expect(applyTransformations('  31/12/2024 ', field)).toBe('2024-DEC-31');
  });
  it('ignores disabled transformations', () => {
    expect(
      applyTransformations(' Ab ', f({ transformations: { trim_whitespace: { enabled: false }, lowercase: { enabled: true } } })),
    ).toBe(' ab ');
  });
  it('leaves a date that does not parse with "from" unchanged', () => {
    expect(
      applyTransformations('tomorrow', f({ transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } } })),
    ).toBe('tomorrow');
  });
  it('validates transformation options', () => {
    expect(validateTransformations({ trim_whitespace: { enabled: true } })).toEqual([]);
    expect(validateTransformations({ explode: { enabled: true } })[0]).toMatch(/Unknown transformation/);
    expect(validateTransformations({ uppercase: {} })[0]).toMatch(/enabled/);
    expect(validateTransformations({ date_format: { enabled: true } })[0]).toMatch(/"to"/);
    expect(validateTransformations({ date_format: { enabled: true, from: 'dd/MM/yyyy', to: "yyyy-MM-dd'T'HH:mm" } })).toEqual([]);
    expect(validateTransformations({ date_format: { enabled: true, to: 'nonsense ggg' } })).toEqual([
      'date_format "to" must be a date pattern such as yyyy-MM-dd; "nonsense ggg" is not one.',
    ]);
    // Written by date-fns but not read: a field's pattern is read with too.
    expect(validateTransformations({ date_format: { enabled: true, from: 'yyyy zzz', to: 'yyyy-MM-dd' } })).toEqual([
      'date_format "from" must be a date pattern such as dd/MM/yyyy; "yyyy zzz" is not one.',
    ]);
  });

  it('a pattern stored before patterns were checked reads and writes no date, and throws for no value', () => {
    const stored = f({
      data_type: 'date',
      format: 'gibberish',
      transformations: { date_format: { enabled: true, from: 'dd/ff/yyyy', to: 'nonsense ggg' } },
    });
    expect(applyTransformations('05/01/2024', stored)).toBe('05/01/2024');
    // The format reads nothing; an ISO date still passes the date check, as it does beside any format.
    expect(typeValue('05/01/2024', stored).problem).toBe('type');
    expect(typeValue('2024-01-05', stored).problem).toBeNull();
  });

  it("reads a workbook's plain numbers as numbers whatever the number_format, and other text in it", () => {
    const german = f({ data_type: 'number', number_format: { locale: 'de-DE', currency: true } });
    const share = f({ data_type: 'number', number_format: { locale: 'fr-FR', percent: true } });
    const inWorkbook = { workbookNumbers: true };
    expect(compileTypeCheck(german, inWorkbook)('1.234')).toEqual({ value: 1.234, problem: null });
    expect(compileTypeCheck(german, inWorkbook)('1e-7')).toEqual({ value: 1e-7, problem: null });
    expect(compileTypeCheck(german, inWorkbook)('1.234,56 €')).toEqual({ value: 1234.56, problem: null });
    expect(compileTypeCheck(share, inWorkbook)('0.12')).toEqual({ value: 0.12, problem: null });
    expect(compileTypeCheck(share, inWorkbook)('12 %')).toEqual({ value: 0.12, problem: null });
    // In an integer field a plain number that is not whole is a problem, not a number in the locale (a probe found
    // 1.234 read as 1234 and 0.001 as 1, without a word).
    const count = f({ data_type: 'integer', number_format: { locale: 'de-DE' } });
    expect(compileTypeCheck(count, inWorkbook)('1.234')).toEqual({ value: '1.234', problem: 'type' });
    expect(compileTypeCheck(count, inWorkbook)('0.001')).toEqual({ value: '0.001', problem: 'type' });
    expect(compileTypeCheck(count, inWorkbook)('1234')).toEqual({ value: 1234, problem: null });
    expect(compileTypeCheck(count, inWorkbook)('1.234.567')).toEqual({ value: 1234567, problem: null });
    // In a text file, as people write them there.
    expect(compileTypeCheck(german)('1.234')).toEqual({ value: 1234, problem: null });
    expect(compileTypeCheck(share)('12')).toEqual({ value: 0.12, problem: null });
  });

  it('ISO 8601 without a pattern is a calendar date in full, with a time and a zone if any (a probe found "12" read as 1200-01-01)', () => {
    const dates = f({ data_type: 'date' });
    const times = f({ data_type: 'datetime', format: "yyyy-MM-dd'T'HH:mm:ssXXX" });
    const rewrite = f({ data_type: 'date', transformations: { date_format: { enabled: true, to: 'yyyy-MM-dd' } } });
    for (const value of ['12', '07', '99', '2024', '2024-03', '2024-W10', '2024-064', '2024-03-04T10:00:00+25:00', '2024-3-4']) {
      expect({ value, problem: typeValue(value, dates).problem }).toEqual({ value, problem: 'type' });
      // Not rewritten into a day nobody wrote: left as it was, for the check to flag.
      expect({ value, rewritten: applyTransformations(value, rewrite) }).toEqual({ value, rewritten: value });
    }
    expect(typeValue('2024-03-04T10:00:00+25:00', times).problem).toBe('type');
    // A minute past 14 hours is as far as no place is (a probe found +14:01 passed and rewritten a day earlier).
    for (const value of ['2024-03-04T10:00+14:01', '2024-03-04T10:00-1430']) {
      expect({ value, dates: typeValue(value, dates).problem, times: typeValue(value, times).problem }).toEqual({
        value,
        dates: 'type',
        times: 'type',
      });
      expect(applyTransformations(value, rewrite)).toBe(value);
    }
    for (const value of [
      '2024-03-04',
      '20240304',
      '2024-03-04T10:00',
      '2024-03-04 10:00:00',
      '2024-03-04T10:00:00.5Z',
      '2024-03-04T10:00:00+02:00',
      '2024-03-04T23:30:00-14:00',
      '2024-03-04T10:00+14',
      '2024-03-04T10:00+1345',
    ]) {
      expect({ value, problem: typeValue(value, dates).problem }).toEqual({ value, problem: null });
    }
    expect(applyTransformations('20240304', rewrite)).toBe('2024-03-04');
    expect(applyTransformations('2024-03-04T23:30:00-05:00', rewrite)).toBe('2024-03-05');
  });

  it('a four-letter year asks for the year in full: "20-1-5" under yyyy-MM-dd is no date (a probe found it read as the year 20)', () => {
    const problem = (value: string, format: string) => typeValue(value, f({ data_type: 'date', format })).problem;
    expect(problem('20-1-5', 'yyyy-MM-dd')).toBe('type');
    expect(problem('1/2/24', 'dd/MM/yyyy')).toBe('type');
    expect(problem('31/12/0999', 'dd/MM/yyyy')).toBe('type');
    // A plain ISO day is a date beside any format (its year is written in full by ISO's rule).
    expect(problem('0999-12-31', 'yyyy-MM-dd')).toBeNull();
    // Short months and days stay as date-fns reads them; a two-letter year is a two-digit year; a year in full passes.
    expect(problem('2020-1-5', 'yyyy-MM-dd')).toBeNull();
    expect(problem('1000-01-01', 'yyyy-MM-dd')).toBeNull();
    expect(problem('1/2/24', 'd/M/yy')).toBeNull();
    // The same outside the compiled patterns (date-fns reads them), and in a date_format's "from", which then leaves it as it was.
    expect(problem('20-01-05 10:00 PM', 'yyyy-MM-dd hh:mm a')).toBe('type');
    expect(problem('2020-01-05 10:00 PM', 'yyyy-MM-dd hh:mm a')).toBeNull();
    // A quoted "yyyy" is text, not a year.
    expect(problem('yyyy 5/1/24', "'yyyy' d/M/yy")).toBeNull();
    const rewrite = f({ transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } } });
    expect(applyTransformations('1/2/24', rewrite)).toBe('1/2/24');
    expect(applyTransformations('1/2/2024', rewrite)).toBe('2024-02-01');
    // Nor is a year before 1000 written into a pattern that asks for a full year: the field's check would refuse the service's own text.
    const fromIso = f({ transformations: { date_format: { enabled: true, to: 'dd.MM.yyyy' } } });
    expect(applyTransformations('0999-12-31', fromIso)).toBe('0999-12-31');
    expect(applyTransformations('1999-12-31', fromIso)).toBe('31.12.1999');
  });

  it('no pattern is not a bad pattern: a date_format without from reads ISO, and ISO date-times pass beside a format', () => {
    const toGerman = f({ transformations: { date_format: { enabled: true, to: 'dd.MM.yyyy' } } });
    expect(applyTransformations('2024-01-05', toGerman)).toBe('05.01.2024');
    const withTime = f({ data_type: 'datetime', format: 'dd.MM.yyyy HH:mm' });
    expect(typeValue('05.01.2024 10:00', withTime).problem).toBeNull();
    expect(typeValue('2024-01-05T10:00:00', withTime).problem).toBeNull();
  });
});

describe('date_format from ISO 8601', () => {
  it('writes a time with a zone at its UTC wall-clock time, and one without as written, whatever the time zone of the process', () => {
    const cases = [
      // 23:30 at -05:00 is 04:30 the next day in UTC.
      { to: 'dd/MM/yyyy HH:mm', value: '2024-01-31T23:30:00-05:00', written: '01/02/2024 04:30' },
      { to: 'dd/MM/yyyy HH:mm', value: '2024-01-31T23:30:00Z', written: '31/01/2024 23:30' },
      { to: 'dd/MM/yyyy HH:mm', value: '2024-01-31T23:30:00', written: '31/01/2024 23:30' },
      // An ordinal day (compiled since 2026-12-07), and a pattern only date-fns writes (the day of the year's ordinal).
      { to: 'MMMM do, yyyy HH:mm', value: '2024-03-01T00:15:00+02:00', written: 'February 29th, 2024 22:15' },
      { to: 'yyyy, Do HH:mm', value: '2024-03-01T00:15:00+02:00', written: '2024, 60th 22:15' },
      // A zone token in `to` writes the UTC time's zone (it wrote the UTC wall-clock with the host's offset: another instant).
      { to: "yyyy-MM-dd'T'HH:mmXXX", value: '2024-01-31T23:30:00-05:00', written: '2024-02-01T04:30Z' },
      // A space before the time (PostgreSQL's timestamptz text), and a time in New York's daylight-saving gap.
      { to: 'dd/MM/yyyy HH:mm', value: '2024-01-31 23:30:00+00', written: '31/01/2024 23:30' },
      { to: 'MMMM do, yyyy HH:mm', value: '2024-03-10T02:30:00', written: 'March 10th, 2024 02:30' },
      { to: 'MMMM do, yyyy HH:mm', value: '2024-03-10T02:30:00Z', written: 'March 10th, 2024 02:30' },
      // A `from` pattern with an offset.
      { from: "yyyy-MM-dd'T'HH:mm:ssXXX", to: 'yyyy-MM-dd HH:mm', value: '2024-01-31T23:30:00-05:00', written: '2024-02-01 04:30' },
      // Fractions of a second: read by the compiled reader; written by date-fns, which keeps the milliseconds read.
      { from: 'dd/MM/yyyy HH:mm:ss.SSS', to: "yyyy-MM-dd'T'HH:mm:ss", value: '31/01/2024 23:30:15.250', written: '2024-01-31T23:30:15' },
      { to: 'dd/MM/yyyy HH:mm:ss.SSS', value: '2024-01-31T23:30:15.25+01:00', written: '31/01/2024 22:30:15.250' },
      { from: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", to: 'HH:mm:ss.SS', value: '2024-01-31T23:30:15.257-01:00', written: '00:30:15.25' },
      // A year before 1 is not written (date-fns writes the year of its era, 0 as 1): left as it was, for the check to flag.
      { to: 'y-MM-dd', value: '0000-01-01', written: '0000-01-01' },
      { to: 'y-MM-dd', value: '0000-01-01T00:30:00+01:00', written: '0000-01-01T00:30:00+01:00' },
      { to: "yy-MM-dd'T'HH:mmXXX", value: '0000-01-01T00:30:00+01:00', written: '0000-01-01T00:30:00+01:00' },
      { to: 'y-MM-dd', value: '0001-01-01T00:30:00-01:00', written: '1-01-01' },
    ];
    for (const tz of ['America/Los_Angeles', 'America/New_York', 'Asia/Tokyo', 'UTC']) {
      const written = inTimeZone(
        tz,
        { transformations: `${__dirname}/transformations.ts` },
        'input.map((c) => m.transformations.compileDateRewrite(c.from ?? null, c.to)(c.value))',
        cases,
      );
      expect({ tz, written }).toEqual({ tz, written: cases.map((c) => c.written) });
    }
  });
});

describe('typeValue', () => {
  it.each([
    ['email', 'a@b.io', { value: 'a@b.io', problem: null }],
    ['email', 'not-an-email', { value: 'not-an-email', problem: 'type' }],
    ['number', ' 12.5 ', { value: 12.5, problem: null }],
    ['number', '12,5', { value: '12,5', problem: 'type' }],
    ['integer', '3.2', { value: '3.2', problem: 'type' }],
    ['integer', '007', { value: 7, problem: null }],
    ['boolean', 'Yes', { value: true, problem: null }],
    ['boolean', 'maybe', { value: 'maybe', problem: 'type' }],
    ['date', '2024-02-29', { value: '2024-02-29', problem: null }],
    ['date', '2023-02-29', { value: '2023-02-29', problem: 'type' }],
    ['string', '007', { value: '007', problem: null }],
    ['mystery_type', 'x', { value: 'x', problem: null }],
  ])('%s %j', (data_type, raw, expected) => expect(typeValue(raw, f({ data_type }))).toEqual(expected));

  it('reports an empty required value and gives null', () => {
    expect(typeValue('  ', f({ is_required: true }))).toEqual({ value: null, problem: 'required' });
    expect(typeValue('', f())).toEqual({ value: null, problem: null });
  });
  it('checks dates against the field format', () => {
    expect(typeValue('31/12/2024', f({ data_type: 'date', format: 'dd/MM/yyyy' })).problem).toBeNull();
    expect(typeValue('12/31/2024', f({ data_type: 'date', format: 'dd/MM/yyyy' })).problem).toBe('type');
  });
});

import { mapRow, planFields } from './map-row';

describe('mapRow', () => {
  const fields = {
    email: f({
      data_type: 'email',
      is_required: true,
      transformations: { lowercase: { enabled: true }, trim_whitespace: { enabled: true } },
    }),
    age: f({ data_type: 'integer' }),
    city: f(),
  };
  const plan = planFields(fields, { email: 'Mail', age: 'Age', city: null }, ['Age', 'Mail']);

  it('maps by column index, transforms, types, and leaves unmapped fields null', () => {
    expect(mapRow(['42', ' ANN@X.IO '], 1, plan, true)).toEqual({ record: { email: 'ann@x.io', age: 42, city: null }, problems: [] });
  });
  it('keeps invalid values as text and reports them', () => {
    expect(mapRow(['forty', ''], 1, plan, true)).toEqual({
      record: { email: null, age: 'forty', city: null },
      problems: [
        { field: 'email', problem: 'required' },
        { field: 'age', problem: 'type' },
      ],
    });
  });
  it('writes a number a number_format read as a plain decimal for CSV output, never with an exponent (a probe found -1e-22)', () => {
    const amount = { amount: f({ data_type: 'number', number_format: { locale: 'de-DE' } }) };
    const amountPlan = planFields(amount, { amount: 'Betrag' }, ['Betrag']);
    const csv = (cell: string) => mapRow([cell], 1, amountPlan, false).record.amount;
    expect(csv('-0,0000000000000000000001')).toBe('-0.0000000000000000000001');
    expect(csv('1.000.000.000.000.000.000.000')).toBe('1000000000000000000000');
    expect(csv('1.234,5')).toBe('1234.5');
    // JSON output keeps the number.
    expect(mapRow(['-0,0000000000000000000001'], 1, amountPlan, true).record.amount).toBe(-1e-22);
  });
  it('keeps text untyped for CSV output', () => {
    expect(mapRow(['042', 'a@b.io'], 1, plan, false).record).toEqual({ email: 'a@b.io', age: '042', city: null });
  });
  it('writes a value of blanks alone as empty in CSV output, as JSON output writes it null (a probe found " " and a tab kept)', () => {
    const blank = (cell: string, typed: boolean) => mapRow([cell, cell], 1, plan, typed);
    for (const cell of [' ', '\t', '  \u00a0 ']) {
      expect(blank(cell, false)).toEqual(blank(cell, true));
      expect(blank(cell, false).record).toEqual({ email: null, age: null, city: null });
    }
  });
  it('treats a short row as empty cells', () => {
    expect(mapRow(['1'], 1, plan, true).record).toEqual({ email: null, age: 1, city: null });
  });
  it('writes a picklist value with blanks around it as its allowed value in CSV output, as JSON output writes it (a probe found " Active " kept)', () => {
    const status = { status: f({ data_type: 'enum', allowed_values: [{ value: 'Active' }, { value: 'Inactive' }] }) };
    const statusPlan = planFields(status, { status: 'Status' }, ['Status']);
    const both = (cell: string) => [mapRow([cell], 1, statusPlan, true).record.status, mapRow([cell], 1, statusPlan, false).record.status];
    expect(both(' Active ')).toEqual(['Active', 'Active']);
    expect(both('\tInactive')).toEqual(['Inactive', 'Inactive']);
    // A value that is not allowed stays as read in both, with its problem.
    expect(both(' active ')).toEqual([' active ', ' active ']);
    expect(mapRow([' active '], 1, statusPlan, false).problems).toEqual([{ field: 'status', problem: 'type' }]);
  });
  it('takes only dates in the to of an enabled date_format: one its from did not read would mix forms in the output', () => {
    const day = (date_format: Record<string, unknown>) =>
      f({ data_type: 'date', transformations: { date_format: { enabled: true, ...date_format } } });
    const german = planFields({ day: day({ from: 'dd/MM/yyyy', to: 'dd.MM.yyyy' }) }, { day: 'Day' }, ['Day']);
    const written = (plan: typeof german, cell: string) => {
      const { record, problems } = mapRow([cell], 1, plan, true);
      return [record.day, problems.map((p) => p.problem)];
    };
    expect(written(german, '05/01/2024')).toEqual(['05.01.2024', []]);
    // A workbook's date (ISO, not in `from`) was left as it is and passed as ISO 8601 (a probe: a column of two forms).
    expect(written(german, '2024-01-05')).toEqual(['2024-01-05', ['type']]);
    expect(written(german, '2024-01-05T06:00:00')).toEqual(['2024-01-05T06:00:00', ['type']]);
    // Without `from` ISO 8601 is read and rewritten; a value already in `to` is in it.
    const fromIso = planFields({ day: day({ to: 'dd.MM.yyyy' }) }, { day: 'Day' }, ['Day']);
    expect(written(fromIso, '2024-01-05T06:00:00')).toEqual(['05.01.2024', []]);
    expect(written(fromIso, '06.01.2024')).toEqual(['06.01.2024', []]);
    // Disabled, it writes nothing: ISO 8601 passes as without it.
    const off = planFields(
      { day: f({ data_type: 'date', transformations: { date_format: { enabled: false, to: 'dd.MM.yyyy' } } }) },
      { day: 'Day' },
      ['Day'],
    );
    expect(written(off, '2024-01-05')).toEqual(['2024-01-05', []]);
  });

  it('checks a url as docs/api.md says: a host name with a top-level domain or an IP address, not localhost', () => {
    const url: FieldDefinition = { description: 'Site', data_type: 'url', is_required: false };
    const verdict = (value: string) => [value, typeValue(value, url).problem];
    const passing = [
      'example.org',
      'https://example.org/a?b#c',
      'ftp://x.org',
      'https://1.2.3.4',
      'http://[::1]/x',
      'example.com:8080/x',
      'https://u:p@example.com',
    ];
    for (const value of passing) expect(verdict(value)).toEqual([value, null]);
    for (const value of ['http://localhost', 'mailto:a@b.com', 'https://exa mple.com', 'http://999.1.1.1', '//example.com'])
      expect(verdict(value)).toEqual([value, 'type']);
  });
  it('writes in CSV output the string JSON output writes, for every passing value JSON writes as a string', () => {
    const fields: Record<string, FieldDefinition> = {
      text: f(),
      email: f({ data_type: 'email' }),
      url: f({ data_type: 'url' }),
      day: f({ data_type: 'date' }),
      tier: f({ data_type: 'enum', allowed_values: [{ value: 'gold' }, { value: 'silver' }] }),
      free: f({ data_type: 'enum' }),
      phone: f({ data_type: 'phone', default_region: 'DE' }),
      country: f({ data_type: 'country' }),
    };
    const names = Object.keys(fields);
    const typesPlan = planFields(fields, Object.fromEntries(names.map((n) => [n, n])), names);
    const rows = [
      [' a ', ' a@b.io ', ' example.org ', ' 2024-01-31 ', ' gold ', ' x ', ' 030 123456 ', ' Germany '],
      ['a', 'a@b.io', 'https://example.org', '2024-01-31', 'silver\t', 'x', '+4930123456', 'de'],
    ];
    for (const row of rows) {
      const json = mapRow(row, 1, typesPlan, true);
      const csv = mapRow(row, 1, typesPlan, false);
      expect(json.problems).toEqual([]);
      for (const name of names) expect([name, csv.record[name]]).toEqual([name, json.record[name]]);
    }
  });
});
