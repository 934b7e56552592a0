import { whereToCut } from './where-to-cut';

describe('whereToCut (when a free thread takes the last rows of a part)', () => {
  // A part from row 1 that claimed 100,000 rows in 1 s: 10 µs a row; a new part's start (0.1 s) is
  // worth 10,000 rows, and a new part goes twice as slowly.
  const pace = { fromRow: 1, claimed: 100_000, seconds: 1 };

  it('leaves both threads ending together: the part its rows at its pace, the new one its start and its rows twice as slowly', () => {
    // 100,000 rows left: the free thread takes 30,000 (0.1 s + 2 x 0.3 s), the part keeps 70,000 (0.7 s).
    expect(whereToCut({ ...pace, lastRow: 200_000 })).toBe(170_000);
  });

  it('leaves a part whole when the cut would end the work less than 0.15 s sooner', () => {
    // 55,000 rows left (0.55 s): 15,000 taken, ending 0.15 s sooner.
    expect(whereToCut({ ...pace, lastRow: 155_000 })).toBe(140_000);
    expect(whereToCut({ ...pace, lastRow: 154_997 })).toBeNull();
  });

  it('leaves a part whole when the free thread would take fewer than 5,000 rows, however slow', () => {
    // 1 s a row: the start is worth a tenth of a row.
    expect(whereToCut({ fromRow: 1, claimed: 10, seconds: 10, lastRow: 15_009 })).toBeNull();
    expect(whereToCut({ fromRow: 1, claimed: 10, seconds: 10, lastRow: 15_011 })).toBe(10_011);
  });

  it('leaves a part whole before it has a pace', () => {
    expect(whereToCut({ fromRow: 501, claimed: 500, seconds: 1, lastRow: 1_000_000 })).toBeNull();
    expect(whereToCut({ fromRow: 1, claimed: 500, seconds: 0, lastRow: 1_000_000 })).toBeNull();
  });
});
