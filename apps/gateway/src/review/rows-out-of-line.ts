import { rowsAboveHeaderOf, rowsBeforeDataOf, type RunState } from '@app/domain';

/**
 * Rows of the file whose cells do not line up with its first row, as the review page tells the
 * reviewer: counted at ingestion (RowShape), numbered here as the page numbers data rows, with the
 * columns the longer rows' extra values are in (they have no name in the header: `column_N`).
 */
export interface RowsOutOfLine {
  /** Cells in the file's first row (the header, when it is one: up to its last with a value, as it names no column past it). */
  first_row_cells: number;
  longer_rows: number;
  /** The first longer row's data row number; null when none is longer. */
  first_longer_row: number | null;
  /** The columns only longer rows have, in file order, up to the farthest with a value. */
  extra_columns: string[];
  shorter_rows: number;
  first_shorter_row: number | null;
}

export function rowsOutOfLine(
  run: Pick<RunState, 'row_shape' | 'row_shape_rows_above' | 'input_has_header' | 'rows_above_header' | 'source_headers'>,
): RowsOutOfLine | null {
  const shape = run.row_shape;
  // Counted under another header row (the reviewer chose the row with the names since): its rows and numbers say nothing now.
  if (!shape || rowsAboveHeaderOf(run) !== (run.row_shape_rows_above ?? 0)) return null;
  // Read as the header, a first row that ends with empty cells names no column past its last value.
  const past = run.input_has_header && shape.past_header_values;
  const longer = past
    ? { cells: past.first_row_values, rows: past.longer_rows, first: past.first_longer_row }
    : { cells: shape.first_row_cells, rows: shape.longer_rows, first: shape.first_longer_row };
  if (longer.rows === 0 && shape.shorter_rows === 0) return null;
  // Row numbers count the file's rows from its first; the page counts data rows, after the rows above the header and
  // the header when there are some.
  const before = rowsBeforeDataOf(run);
  const dataRow = (row: number | null) => (row === null ? null : row - before);
  return {
    first_row_cells: longer.cells,
    longer_rows: longer.rows,
    first_longer_row: dataRow(longer.first),
    // Columns past the farthest value are empty in every row (a row ending in many delimiters): nothing to look for there.
    extra_columns: run.source_headers.slice(longer.cells, shape.values_width),
    shorter_rows: shape.shorter_rows,
    first_shorter_row: dataRow(shape.first_shorter_row),
  };
}
