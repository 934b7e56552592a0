import { rowsOutOfLine } from './rows-out-of-line';

describe('rows out of line, as the review tells them', () => {
  const row_shape = { first_row_cells: 2, longer_rows: 3, first_longer_row: 4, shorter_rows: 1, first_shorter_row: 9 };
  const source_headers = ['E-mail', 'Name', 'column_3', 'column_4'];

  it('numbers data rows after the header, and names the columns only longer rows reach', () => {
    expect(rowsOutOfLine({ row_shape, input_has_header: true, source_headers })).toEqual({
      first_row_cells: 2,
      longer_rows: 3,
      first_longer_row: 3,
      extra_columns: ['column_3', 'column_4'],
      shorter_rows: 1,
      first_shorter_row: 8,
    });
  });

  it('numbers them after the rows left out above the header, and says nothing under another header row than they were counted under', () => {
    const above = ['Customer export', 'Made 2024-01-05'];
    const titled = { row_shape, row_shape_rows_above: 2, input_has_header: true, rows_above_header: above, source_headers };
    expect(rowsOutOfLine(titled)).toMatchObject({ first_longer_row: 1, first_shorter_row: 6 });
    expect(rowsOutOfLine({ ...titled, rows_above_header: [] })).toBeNull();
    expect(rowsOutOfLine({ ...titled, input_has_header: false, rows_above_header: [] })).toBeNull();
    expect(rowsOutOfLine({ ...titled, row_shape_rows_above: undefined })).toBeNull();
  });

  it('names no column past the farthest value, though a row ends with empty cells there', () => {
    const headers = [...source_headers, 'column_5', 'column_6'];
    expect(rowsOutOfLine({ row_shape: { ...row_shape, values_width: 3 }, input_has_header: true, source_headers: headers })).toMatchObject({
      extra_columns: ['column_3'],
    });
    // Read before the farthest value was counted: every column past the first row's.
    expect(rowsOutOfLine({ row_shape, input_has_header: true, source_headers: headers })).toMatchObject({
      extra_columns: ['column_3', 'column_4', 'column_5', 'column_6'],
    });
  });

  it("numbers the file's rows from the first when it has no header, and keeps a missing first row missing", () => {
    expect(
      rowsOutOfLine({ row_shape: { ...row_shape, first_shorter_row: null, shorter_rows: 0 }, input_has_header: false, source_headers }),
    ).toMatchObject({
      first_longer_row: 4,
      first_shorter_row: null,
    });
  });

  it('is null for a run whose rows line up or that was read before they were counted', () => {
    expect(rowsOutOfLine({ row_shape: null, input_has_header: true, source_headers })).toBeNull();
    expect(rowsOutOfLine({ input_has_header: true, source_headers })).toBeNull();
  });

  it('reads the rows past a first row that ends with empty cells as the header answer has it', () => {
    const shape = {
      first_row_cells: 3,
      longer_rows: 0,
      first_longer_row: null,
      shorter_rows: 0,
      first_shorter_row: null,
      past_header_values: { first_row_values: 2, longer_rows: 39, first_longer_row: 2 },
    };
    const headers = ['E-mail', 'Name', 'column_3'];
    // A header names no column past its last value: every row with a value there is told.
    expect(rowsOutOfLine({ row_shape: shape, input_has_header: true, source_headers: headers })).toEqual({
      first_row_cells: 2,
      longer_rows: 39,
      first_longer_row: 1,
      extra_columns: ['column_3'],
      shorter_rows: 0,
      first_shorter_row: null,
    });
    // Read as data, the first row has that cell (its value is missing): nothing to tell.
    expect(rowsOutOfLine({ row_shape: shape, input_has_header: false, source_headers: ['column_1', 'column_2', 'column_3'] })).toBeNull();
  });
});
