import { whereToCut } from './where-to-cut';

describe('whereToCut (when a free thread takes the last rows of a part)', () => {
  // A part from row 1 that claimed 100,000 rows in 1 s: 10 µs a row; a new part's start (0.15 s) is 15,000 rows.
  const pace = { fromRow: 1, claimed: 100_000, seconds: 1 };

  it('leaves both threads ending together: the free thread takes half of what is left once its start is counted', () => {
    // 100,000 rows left: the part keeps 57,500, the free thread takes 42,500 after a start worth 15,000.
    expect(whereToCut({ ...pace, lastRow: 200_000 })).toBe(157_500);
  });

  it('leaves a part whole when the free thread would have less than 0.2 s of rows to write', () => {
    // 55,000 rows left (0.55 s): 20,000 taken, 0.2 s.
    expect(whereToCut({ ...pace, lastRow: 155_000 })).toBe(135_000);
    expect(whereToCut({ ...pace, lastRow: 154_998 })).toBeNull();
  });

  it('leaves a part whole when the free thread would take fewer than 5,000 rows, however slow', () => {
    // 1 s a row: the start is worth less than one row.
    expect(whereToCut({ fromRow: 1, claimed: 10, seconds: 10, lastRow: 10_008 })).toBeNull();
    expect(whereToCut({ fromRow: 1, claimed: 10, seconds: 10, lastRow: 10_012 })).toBe(5_012);
  });

  it('leaves a part whole before it has a pace', () => {
    expect(whereToCut({ fromRow: 501, claimed: 500, seconds: 1, lastRow: 1_000_000 })).toBeNull();
    expect(whereToCut({ fromRow: 1, claimed: 500, seconds: 0, lastRow: 1_000_000 })).toBeNull();
  });
});
