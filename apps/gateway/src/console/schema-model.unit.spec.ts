import { fieldsFromRows, rowsFromFields, schemaOptions } from './page/schema-model';

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

  it("keeps a schema's options beside name and fields (validation_url, unique_with), and none of the resource's own members", () => {
    const resource = {
      id: '3fc78df8-476c-4edf-8ab7-a0b2929f6187',
      name: 'Orders',
      fields: { a: { description: 'A', data_type: 'string', is_required: false } },
      validation_url: 'https://hooks.example.com/check',
      unique_with: [['a', 'b']],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    };
    expect(schemaOptions(resource)).toEqual({ validation_url: 'https://hooks.example.com/check', unique_with: [['a', 'b']] });
    expect(schemaOptions({ name: 'Bare', fields: resource.fields })).toEqual({});
  });
});
