import { joinRowWidths, rowShapeOf, RowWidths } from './row-widths';

describe('row widths', () => {
  it('counts rows by their cells and keeps the first of each, past the widest it was made for', () => {
    const widths = new RowWidths(2);
    [3, 3, 5, 2, 5, 3, 1].forEach((cells, i) => widths.note(cells, i + 1));
    expect(widths.counted()).toEqual([
      [1, 1, 7],
      [2, 1, 4],
      [3, 3, 1],
      [5, 2, 3],
    ]);
  });

  it("numbers a later part's rows after the first part's when the two are joined", () => {
    expect(
      joinRowWidths(
        [
          [3, 10, 1],
          [4, 1, 6],
        ],
        [
          [2, 1, 5],
          [3, 7, 1],
        ],
        10,
      ),
    ).toEqual([
      [2, 1, 15],
      [3, 17, 1],
      [4, 1, 6],
    ]);
  });

  it("tells the rows longer and shorter than the first row's cells, and the first of each", () => {
    const widths: [number, number, number][] = [
      [2, 4, 9],
      [3, 90, 1],
      [4, 2, 30],
      [6, 1, 12],
    ];
    expect(rowShapeOf(widths, 3, true)).toEqual({
      first_row_cells: 3,
      longer_rows: 3,
      first_longer_row: 12,
      shorter_rows: 4,
      first_shorter_row: 9,
    });
    // A workbook's row ends at its last value: fewer cells say nothing there.
    expect(rowShapeOf(widths, 3, false)).toEqual({
      first_row_cells: 3,
      longer_rows: 3,
      first_longer_row: 12,
      shorter_rows: 0,
      first_shorter_row: null,
    });
    expect(rowShapeOf([[3, 100, 1]], 3, true)).toBeNull();
    expect(
      rowShapeOf(
        [
          [2, 5, 4],
          [3, 1, 1],
        ],
        3,
        false,
      ),
    ).toBeNull();
  });
});
