import { checksFromSchema, fieldsFromRows, rowsFromFields, schemaFromChecks, schemaFromJson, schemaOptions } from './page/schema-model';

describe("the console's schema form model", () => {
  it('keeps a field’s validators through the form unchanged, so saving the form drops none', () => {
    const fields = {
      code: {
        description: 'Code',
        data_type: 'string',
        is_required: true,
        pattern: '^[A-Z]{2}-\\d{3}$',
        min_length: 6,
        max_length: 6,
        unique: true,
      },
      qty: { description: 'Qty', data_type: 'integer', is_required: false, min: 1, max: 100 },
      due: { description: 'Due', data_type: 'date', is_required: false, min: '2024-01-01' },
      note: { description: 'Note', data_type: 'string', is_required: false },
    };
    expect(fieldsFromRows(rowsFromFields(fields))).toEqual(fields);
  });

  it('keeps any other member the form has no input for, untouched', () => {
    const fields = {
      code: { description: 'Code', data_type: 'string', is_required: true, label: 'Code', some_future_option: { deep: [1, 2] } },
    };
    expect(fieldsFromRows(rowsFromFields(fields))).toEqual(fields);
  });

  it("lets the form's own inputs win over what it read", () => {
    const [row] = rowsFromFields({ a: { description: 'A', data_type: 'string', is_required: false, label: 'Old' } });
    expect(row.other).toEqual({});
    expect(fieldsFromRows([{ ...row, label: 'New', is_required: true }])).toEqual({
      a: { description: 'A', data_type: 'string', is_required: true, label: 'New' },
    });
  });

  it("keeps a schema's options beside name and fields, its checks in their inputs, and none of the resource's own members", () => {
    const resource = {
      id: '3fc78df8-476c-4edf-8ab7-a0b2929f6187',
      name: 'Orders',
      fields: { a: { description: 'A', data_type: 'string', is_required: false } },
      validation_url: 'https://hooks.example.com/check',
      unique_with: [['a', 'b']],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    };
    expect(schemaOptions({ ...resource, some_future_option: 1 })).toEqual({ some_future_option: 1 });
    expect(checksFromSchema(resource)).toEqual({ validation_url: 'https://hooks.example.com/check', unique_with: 'a, b' });
    expect(schemaOptions({ name: 'Bare', fields: resource.fields })).toEqual({});
  });

  it('reads the checks typed in the form: bounds as numbers where they are, dates and anything else as text for the API to judge', () => {
    const [qty, due, code] = rowsFromFields({
      qty: { description: 'Qty', data_type: 'integer', is_required: false },
      due: { description: 'Due', data_type: 'date', is_required: false },
      code: { description: 'Code', data_type: 'string', is_required: false },
    });
    const fields = fieldsFromRows([
      { ...qty, min: ' 1 ', max: '1e3' },
      { ...due, min: '2024', max: '2024-12-31' },
      { ...code, pattern: '^[A-Z]+ $', min_length: '2', max_length: 'ten', unique: true },
    ]);
    expect(fields).toEqual({
      qty: { description: 'Qty', data_type: 'integer', is_required: false, min: 1, max: 1000 },
      due: { description: 'Due', data_type: 'date', is_required: false, min: '2024', max: '2024-12-31' },
      code: {
        description: 'Code',
        data_type: 'string',
        is_required: false,
        pattern: '^[A-Z]+ $',
        min_length: 2,
        max_length: 'ten',
        unique: true,
      },
    });
    expect(rowsFromFields(fields).map((r) => [r.min, r.max, r.min_length, r.max_length, r.unique])).toEqual([
      ['1', '1000', '', '', false],
      ['2024', '2024-12-31', '', '', false],
      ['', '', '2', 'ten', true],
    ]);
  });

  it("edits a schema's unique_with as one set per line and its validation_url, and sends neither when empty", () => {
    const checks = checksFromSchema({
      unique_with: [
        ['name', 'city'],
        ['a', 'b', 'c'],
      ],
      validation_url: 'https://hooks.example.com/v',
    });
    expect(checks).toEqual({ unique_with: 'name, city\na, b, c', validation_url: 'https://hooks.example.com/v' });
    expect(schemaFromChecks({ unique_with: ' name ,city\n\n a,b , c, ', validation_url: ' https://hooks.example.com/v ' })).toEqual({
      unique_with: [
        ['name', 'city'],
        ['a', 'b', 'c'],
      ],
      validation_url: 'https://hooks.example.com/v',
    });
    expect(schemaFromChecks({ unique_with: '\n ', validation_url: '' })).toEqual({});
    // A set of one stays a set of one: the API says sets need two names.
    expect(schemaFromChecks({ unique_with: 'name', validation_url: '' })).toEqual({ unique_with: [['name']] });
  });

  it('sends a field named "__proto__" as a field, for the API to refuse by name (assigned, it set the prototype and vanished)', () => {
    const [email] = rowsFromFields({ email: { description: 'E-mail', data_type: 'email', is_required: true } });
    const sent = JSON.parse(JSON.stringify(fieldsFromRows([email, { ...email, name: '__proto__', description: 'Sneaky' }])));
    expect(Object.keys(sent)).toEqual(['email', '__proto__']);
    expect(Object.getPrototypeOf(fieldsFromRows([{ ...email, name: '__proto__' }]))).toBe(Object.prototype);
  });

  it('takes JSON into the form only when it is a schema or its fields; any other shape is refused, not an emptied form', () => {
    const fields = { email: { description: 'E-mail', data_type: 'email', is_required: true } };
    expect(schemaFromJson(JSON.stringify({ name: 'People', fields, validation_url: null }))).toMatchObject({
      name: 'People',
      fields,
      whole: true,
    });
    expect(schemaFromJson(JSON.stringify(fields))).toMatchObject({ name: null, fields, whole: false });
    expect(schemaFromJson('{"name": "X", "fields": ')).toBe('not json');
    for (const other of ['[1,2,3]', '"hello"', 'null', '{}', '{"name":"X","fields":[{"email":{}}]}', '{"fields":{"a":1}}', '{"a":"b"}'])
      expect([other, schemaFromJson(other)]).toEqual([other, 'not a schema']);
  });
});
