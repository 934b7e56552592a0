import type { AppliedFix } from './value-fixes';
import { compileRowsLeftOut, rowDigest, rowsLeftOut } from './rows-left-out';
import { compileFieldFixes } from './value-fixes';

const at = '2026-12-05T00:00:00.000Z';
const out = (row: number, digest: string, id = `o${row}`): AppliedFix => ({
  fix_id: id,
  field: '',
  fix: { kind: 'leave_out', row, row_digest: digest },
  fixed_at: at,
});
const back = (row: number): AppliedFix => ({ fix_id: `b${row}`, field: '', fix: { kind: 'put_back', row }, fixed_at: at });

describe('rows left out', () => {
  it("reads a row in the run's columns: cells past them do not change what it reads", () => {
    expect(rowDigest(['a', 'b', 'extra'], 2)).toBe(rowDigest(['a', 'b'], 2));
    expect(rowDigest(['a', 'b'], 2)).not.toBe(rowDigest(['a', 'c'], 2));
    // Cells are not run together: "a,b" in one cell is not "a" and "b".
    expect(rowDigest(['a,b'], 2)).not.toBe(rowDigest(['a', 'b'], 2));
  });

  it('folds the fixes in order: the latest fix of a row decides', () => {
    expect([...rowsLeftOut([out(2, 'x'), out(5, 'y'), back(2)])]).toEqual([[5, 'y']]);
    expect([...rowsLeftOut([out(2, 'x'), back(2), out(2, 'z')])]).toEqual([[2, 'z']]);
  });

  it('costs the reads nothing when no row is left out, and leaves a row out only while it reads as it did', () => {
    expect(compileRowsLeftOut([], 2)).toBeNull();
    expect(compileRowsLeftOut([out(1, 'x'), back(1)], 2)).toBeNull();
    const leftOut = compileRowsLeftOut([out(3, rowDigest(['Total', '9'], 2))], 2)!;
    expect(leftOut(['Total', '9'], 3)).toBe(true);
    expect(leftOut(['Total', '9'], 4)).toBe(false);
    expect(leftOut(['Bob', '9'], 3)).toBe(false);
  });

  it("changes no field's values", () => {
    const field = { description: '', data_type: 'string', is_required: false } as const;
    expect(compileFieldFixes([out(1, 'x'), back(1)], '', field)).toBeNull();
  });
});
