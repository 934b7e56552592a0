import { fieldsFromRows, rowsFromFields } from './page/schema-model';

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
});
