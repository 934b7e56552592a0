import { filledWidth, joinRowWidths, rowShapeOf, RowWidths, rowWidthsBelow, TOP_ROWS_APART, type RowWidthCount } from './row-widths';

describe('row widths', () => {
  it('counts rows by their cells and by their cells up to the last value, keeping the first of each, past 64 cells', () => {
    const widths = new RowWidths();
    const rows: [cells: number, filled: number][] = [
      [3, 3],
      [3, 2],
      [5, 5],
      [2, 2],
      [5, 3],
      [3, 3],
      [1, 1],
      [200, 150],
    ];
    rows.forEach(([cells, filled], i) => widths.note(cells, filled, i + 1));
    expect(rowWidthsBelow(widths.counted(), 0)).toEqual({
      cells: [
        [1, 1, 7],
        [2, 1, 4],
        [3, 3, 1],
        [5, 2, 3],
        [200, 1, 8],
      ],
      filled: [
        [1, 1, 7],
        [2, 2, 2],
        [3, 3, 1],
        [5, 1, 3],
        [150, 1, 8],
      ],
    });
  });

  it("keeps the first rows apart, so that a title's rows are left out exactly, first rows of each width included", () => {
    const widths = new RowWidths();
    // A title (1 cell), a header of 3, data of 3 and one of 1 far below: without the title, 1 cell is first in row 40.
    const rows: [cells: number, filled: number][] = [[1, 1], [3, 3], ...Array.from({ length: 37 }, (): [number, number] => [3, 3]), [1, 1]];
    rows.forEach(([cells, filled], i) => widths.note(cells, filled, i + 1));
    const counted = widths.counted();
    expect(counted.top).toHaveLength(TOP_ROWS_APART);
    expect(rowWidthsBelow(counted, 0).cells).toEqual([
      [1, 2, 1],
      [3, 38, 2],
    ]);
    expect(rowWidthsBelow(counted, 1).cells).toEqual([
      [1, 1, 40],
      [3, 38, 2],
    ]);
    expect(rowWidthsBelow(counted, 2).filled).toEqual([
      [1, 1, 40],
      [3, 37, 3],
    ]);
    // Asking past the rows kept apart would leave some in the tallies.
    expect(() => rowWidthsBelow(counted, TOP_ROWS_APART + 1)).toThrow(RangeError);
    const short = new RowWidths();
    short.note(2, 2, 1);
    expect(rowWidthsBelow(short.counted(), 1)).toEqual({ cells: [], filled: [] });
  });

  it('reads up to the last cell with more than blanks, as String.prototype.trim has it', () => {
    expect(filledWidth(['a', 'b', '', ' \t\u00a0'])).toBe(2);
    expect(filledWidth(['', 'x'])).toBe(2);
    expect(filledWidth(['', ' '])).toBe(0);
    expect(filledWidth([])).toBe(0);
  });

  it("numbers a later part's rows after the first part's when the two are joined", () => {
    const first: RowWidthCount[] = [
      [3, 10, 1],
      [4, 1, 6],
    ];
    const later: RowWidthCount[] = [
      [2, 1, 5],
      [3, 7, 1],
    ];
    const joined: RowWidthCount[] = [
      [2, 1, 15],
      [3, 17, 1],
      [4, 1, 6],
    ];
    // The later part's top rows are tallied with the rest; the first part's stay apart.
    const top: [number, number][] = [[9, 9]];
    expect(joinRowWidths({ cells: first, filled: later, top }, { cells: later, filled: first, top: [[2, 1]] }, 10)).toEqual({
      cells: [[2, 2, 11], ...joined.slice(1)],
      filled: [
        [1, 1, 11],
        [2, 1, 5],
        [3, 17, 1],
        [4, 1, 16],
      ],
      top,
    });
  });

  it('keeps apart the first rows of the file when the first part is shorter than them, as one read would', () => {
    const whole = new RowWidths();
    const firstPart = new RowWidths();
    const laterPart = new RowWidths();
    const rows: [number, number][] = [
      [1, 1],
      [3, 3],
      [3, 2],
      [4, 4],
      [3, 3],
      [2, 2],
      [3, 3],
      [1, 1],
    ];
    rows.forEach(([cells, filled], i) => {
      whole.note(cells, filled, i + 1);
      if (i < 2) firstPart.note(cells, filled, i + 1);
      else laterPart.note(cells, filled, i - 1);
    });
    expect(joinRowWidths(firstPart.counted(), laterPart.counted(), 2)).toEqual(whole.counted());
  });

  it("tells the rows with values past the first row's cells, and those lacking cells it has values in", () => {
    const cells: RowWidthCount[] = [
      [2, 4, 9],
      [3, 90, 1],
      [4, 2, 30],
      [6, 1, 12],
    ];
    const same = { cells, filled: cells };
    expect(rowShapeOf(same, { cells: 3, filled: 3 }, true)).toEqual({
      first_row_cells: 3,
      longer_rows: 3,
      first_longer_row: 12,
      shorter_rows: 4,
      first_shorter_row: 9,
      values_width: 6,
    });
    // A workbook's row ends at its last value: fewer cells say nothing there.
    expect(rowShapeOf(same, { cells: 3, filled: 3 }, false)).toEqual({
      first_row_cells: 3,
      longer_rows: 3,
      first_longer_row: 12,
      shorter_rows: 0,
      first_shorter_row: null,
      values_width: 6,
    });
    expect(rowShapeOf({ cells: [[3, 100, 1]], filled: [[3, 100, 1]] }, { cells: 3, filled: 3 }, true)).toBeNull();
    expect(
      rowShapeOf(
        {
          cells: [
            [2, 5, 4],
            [3, 1, 1],
          ],
          filled: [
            [2, 5, 4],
            [3, 1, 1],
          ],
        },
        { cells: 3, filled: 3 },
        false,
      ),
    ).toBeNull();
  });

  it('says nothing of empty cells at the end of a row, whether the header or the data rows end with a delimiter', () => {
    // "a,b" over rows of "1,2,": three cells, values in two.
    const dataEndsWithDelimiter = {
      cells: [
        [2, 1, 1],
        [3, 50, 2],
      ] as RowWidthCount[],
      filled: [[2, 51, 1]] as RowWidthCount[],
    };
    expect(rowShapeOf(dataEndsWithDelimiter, { cells: 2, filled: 2 }, true)).toBeNull();
    // "a,b," over rows of "1,2": the header's third cell is empty.
    const headerEndsWithDelimiter = {
      cells: [
        [2, 50, 2],
        [3, 1, 1],
      ] as RowWidthCount[],
      filled: [[2, 51, 1]] as RowWidthCount[],
    };
    expect(rowShapeOf(headerEndsWithDelimiter, { cells: 3, filled: 2 }, true)).toBeNull();
    // ...but a row of "1" under "a,b," lacks a value the header has, and "1,2,3" has one where the header names no
    // column (its empty last cell names none); read as data, the first row has that cell, and "1,2,3" fits it.
    const broken = {
      cells: [
        [1, 1, 7],
        [2, 50, 2],
        [3, 2, 1],
      ] as RowWidthCount[],
      filled: [
        [1, 1, 7],
        [2, 51, 1],
        [3, 1, 9],
      ] as RowWidthCount[],
    };
    expect(rowShapeOf(broken, { cells: 3, filled: 2 }, true)).toEqual({
      first_row_cells: 3,
      longer_rows: 0,
      first_longer_row: null,
      shorter_rows: 1,
      first_shorter_row: 7,
      values_width: 3,
      past_header_values: { first_row_values: 2, longer_rows: 1, first_longer_row: 9 },
    });
    // A first row of data that lacks its last value ("ann@x.org,Ann,") over rows that have one: nothing read as data,
    // the rows past its last value as a header would read them.
    const dataFirst = {
      cells: [[3, 40, 1]] as RowWidthCount[],
      filled: [
        [2, 1, 1],
        [3, 39, 2],
      ] as RowWidthCount[],
    };
    expect(rowShapeOf(dataFirst, { cells: 3, filled: 2 }, true)).toEqual({
      first_row_cells: 3,
      longer_rows: 0,
      first_longer_row: null,
      shorter_rows: 0,
      first_shorter_row: null,
      values_width: 3,
      past_header_values: { first_row_values: 2, longer_rows: 39, first_longer_row: 2 },
    });
  });

  it('says how far the values reach, whatever empty cells a row ends with', () => {
    // "a,b,c" over rows of "1,2,3", and one broken row "1,2,3,4,,,," with four more cells but one more value.
    const widths = {
      cells: [
        [3, 50, 1],
        [8, 1, 5],
      ] as RowWidthCount[],
      filled: [
        [3, 50, 1],
        [4, 1, 5],
      ] as RowWidthCount[],
    };
    expect(rowShapeOf(widths, { cells: 3, filled: 3 }, true)).toMatchObject({ longer_rows: 1, first_longer_row: 5, values_width: 4 });
  });

  it('reads the longer rows under a header that ends with empty cells from its last value, when they are the same rows', () => {
    // "E-mail,Name,Age," over rows of "a,b,1", one of them "a,Turing, Alan,41,x": past the header's cells and its last value.
    const widths = {
      cells: [
        [3, 12, 2],
        [4, 1, 1],
        [5, 1, 9],
      ] as RowWidthCount[],
      filled: [
        [3, 13, 1],
        [5, 1, 9],
      ] as RowWidthCount[],
    };
    expect(rowShapeOf(widths, { cells: 4, filled: 3 }, true)).toEqual({
      first_row_cells: 4,
      longer_rows: 1,
      first_longer_row: 9,
      shorter_rows: 0,
      first_shorter_row: null,
      values_width: 5,
      past_header_values: { first_row_values: 3, longer_rows: 1, first_longer_row: 9 },
    });
  });
});
