import { CELL_PROBLEMS, noProblemsByKind, type CellProblem } from '@app/domain';
import {
  ADMIN_TOKEN,
  call,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

/**
 * A schema with every validator (pattern, min/max on numbers and dates, min_length/max_length,
 * unique, unique_with): refused with 422s when malformed, and a whole run whose count, pages
 * and filters hold a problem of each kind, whose bulk tools fix them, and whose output keeps
 * every value.
 */
const FIELDS = {
  code: { description: 'Product code', data_type: 'string', is_required: true, pattern: '^[A-Z]{2}-\\d{3}$', unique: true },
  qty: { description: 'Quantity', data_type: 'integer', is_required: false, min: 1, max: 100 },
  due: { description: 'Due', data_type: 'date', is_required: false, format: 'dd/MM/yyyy', min: '2024-01-01', max: '2024-12-31' },
  name: { description: 'Name', data_type: 'string', is_required: false, min_length: 2, max_length: 10 },
  city: { description: 'City', data_type: 'string', is_required: false },
};

const kinds = (counts: Partial<Record<CellProblem, number>>) => ({ ...noProblemsByKind(), ...counts });

describe('field validators', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  const schemas = () => `${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`;

  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());

  it('refuses malformed validators through the admin API with a 422 naming each one', async () => {
    const res = await call(schemas(), {
      token: ADMIN_TOKEN,
      body: {
        name: 'Bad',
        fields: {
          code: { description: '', data_type: 'string', is_required: false, pattern: '(a+)+$', unique: 'yes' },
          ref: { description: '', data_type: 'string', is_required: false, pattern: '(\\w+)\\1' },
          qty: { description: '', data_type: 'integer', is_required: false, min: 10, max: 1 },
          due: { description: '', data_type: 'date', is_required: false, max: '31/12/2024' },
          name: { description: '', data_type: 'string', is_required: false, min: 3, min_length: -1 },
        },
        unique_with: [['code', 'nope'], ['qty']],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    const errors = res.body.error.fields as Record<string, string[]>;
    expect(errors['fields.code.pattern'][0]).toMatch(/backtrack catastrophically/);
    expect(errors['fields.code.unique']).toEqual(['unique must be true or false.']);
    expect(errors['fields.ref.pattern'][0]).toMatch(/backreferences/);
    expect(errors['fields.qty.min']).toEqual(['min must not be greater than max.']);
    expect(errors['fields.due.max'][0]).toMatch(/ISO 8601/);
    expect(errors['fields.name.min'][0]).toMatch(/min_length and max_length/);
    expect(errors['fields.name.min_length'][0]).toMatch(/integer from 0/);
    expect(errors['unique_with.0']).toEqual(['The schema has no field named "nope".']);
    expect(errors['unique_with.1'][0]).toMatch(/two or more/);
  });

  it('refuses date patterns date-fns cannot both read and write, naming each (a run on them could read no value)', async () => {
    const dateFormat = (from: string, to: string) => ({ date_format: { enabled: true, from, to } });
    const res = await call(schemas(), {
      token: ADMIN_TOKEN,
      body: {
        name: 'Bad dates',
        fields: {
          born: { description: '', data_type: 'date', is_required: false, format: 'gibberish' },
          seen: { description: '', data_type: 'datetime', is_required: false, format: "yyyy-MM-dd'T'HH:mm zzz" },
          due: { description: '', data_type: 'date', is_required: false, transformations: dateFormat('dd/ff/yyyy', 'nonsense ggg') },
          // A format on a field that is not a date is free text, as the spec's "Format of the value".
          phone: { description: '', data_type: 'string', is_required: false, format: 'E.164' },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual({
      'fields.born.format': ['format must be a date pattern such as dd.MM.yyyy; "gibberish" is not one.'],
      'fields.seen.format': ['format must be a date pattern such as dd.MM.yyyy; "yyyy-MM-dd\'T\'HH:mm zzz" is not one.'],
      'fields.due.transformations': [
        'date_format "to" must be a date pattern such as yyyy-MM-dd; "nonsense ggg" is not one.',
        'date_format "from" must be a date pattern such as dd/MM/yyyy; "dd/ff/yyyy" is not one.',
      ],
    });
  });

  it('saves well-formed validators and gives them back', async () => {
    const res = await call(schemas(), { token: ADMIN_TOKEN, body: { name: 'Orders', fields: FIELDS, unique_with: [['name', 'city']] } });
    expect(res.status).toBe(201);
    expect(res.body.data.fields.code).toMatchObject({ pattern: '^[A-Z]{2}-\\d{3}$', unique: true });
    expect(res.body.data.fields.due).toMatchObject({ min: '2024-01-01', max: '2024-12-31' });
    expect(res.body.data.unique_with).toEqual([['name', 'city']]);
  });

  it('reports a problem of each kind in the count, the pages and the filters; fixes clear them; the output keeps every value', async () => {
    const schema = await call(schemas(), { token: ADMIN_TOKEN, body: { name: 'Orders', fields: FIELDS, unique_with: [['name', 'city']] } });
    const csv = [
      'Code,Qty,Due,Name,City',
      'AB-001,5,01/02/2024,Ada,Paris', // 1: fine
      'ab-002,5,01/02/2024,Bob,Rome', // 2: pattern
      'AB-003,500,01/02/2024,Cy,Oslo', // 3: range (number)
      'AB-004,5,01/02/2025,Dee,Lyon', // 4: range (date)
      'AB-005,5,01/02/2024,X,Nice', // 5: length
      'AB-001,5,01/02/2024,Eve,Bonn', // 6: unique (code, with row 1)
      'AB-007,5,01/02/2024,Ada,Paris', // 7: unique_with (name + city, with row 1)
      ',x,01/02/2024,Fay,Graz', // 8: required (code), type (qty)
    ].join('\n');
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schema.body.data.id, filename: 'orders.csv' },
    });
    expect((await upload(run.body, csv)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);

    const count = await review.problems();
    expect(count.body).toMatchObject({
      status: 'counted',
      rows_checked: 8,
      rows_with_problems: 8,
      rows_by_kind: kinds({ required: 1, type: 1, pattern: 1, range: 2, length: 1, unique: 3 }),
      problems_by_field_and_kind: {
        code: kinds({ required: 1, pattern: 1, unique: 2 }),
        qty: kinds({ type: 1, range: 1 }),
        due: kinds({ range: 1 }),
        name: kinds({ length: 1, unique: 2 }),
        city: kinds({ unique: 2 }),
      },
    });

    // Each kind is a filter of the rows with problems, each cell with its kind.
    const rowsOf = async (kind: CellProblem, field?: string) => {
      const page = await review.problemRows({ kind, ...(field ? { field } : {}) });
      expect(page.status).toBe(200);
      return page.body.rows.map((r: { row: number }) => r.row);
    };
    expect(await rowsOf('pattern')).toEqual([2]);
    expect(await rowsOf('range')).toEqual([3, 4]);
    expect(await rowsOf('length')).toEqual([5]);
    expect(await rowsOf('unique')).toEqual([1, 6, 7]);
    expect(await rowsOf('unique', 'city')).toEqual([1, 7]);
    expect(await rowsOf('customer')).toEqual([]);
    const page = await review.problemRows({ kind: 'unique', field: 'code' });
    expect(page.body.rows[1].cells.code).toEqual({ value: 'AB-001', problem: 'unique' });
    const bad = await review.problemRows({ kind: 'bogus' });
    expect(bad.status).toBe(422);
    for (const kind of CELL_PROBLEMS) expect(bad.body.error.fields.kind[0]).toContain(`"${kind}"`);

    // The review view tells the page each field's validators, for its words.
    const view = await review.state();
    const fields = view.body.fields as { name: string }[];
    expect(fields.find((f) => f.name === 'code')).toMatchObject({ pattern: '^[A-Z]{2}-\\d{3}$', unique: true });
    expect(fields.find((f) => f.name === 'city')).toMatchObject({ unique_with: [['name', 'city']] });
    // A date field's pattern, for the words of a date written otherwise; other fields have none.
    expect(fields.find((f) => f.name === 'due')).toMatchObject({ date_pattern: 'dd/MM/yyyy' });
    expect(fields.filter((f) => 'date_pattern' in f).map((f) => f.name)).toEqual(['due']);

    // The same bulk tools as for type problems: find and replace, a cell edit.
    expect((await review.fix('code', { kind: 'replace', find: 'ab-', replace: 'AB-', whole_value: false })).status).toBe(200);
    expect((await review.fix('code', { kind: 'cell', row: 6, before: 'AB-001', after: 'AB-006' })).status).toBe(200);
    const fixed = await review.problems();
    expect(fixed.body.problems_by_field_and_kind.code).toEqual(kinds({ required: 1 }));

    await review.approve();
    const done = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    const output = (await (await fetch(done.download_url)).json()) as Record<string, unknown>[];
    expect(output).toHaveLength(8);
    expect(output.map((r) => r.qty)).toEqual([5, 5, 500, 5, 5, 5, 5, 'x']);
    expect(output.map((r) => r.code)).toEqual(['AB-001', 'AB-002', 'AB-003', 'AB-004', 'AB-005', 'AB-006', 'AB-007', null]);
    expect(output[4].name).toBe('X');
    expect(output[6]).toMatchObject({ name: 'Ada', city: 'Paris' });
  });
});
