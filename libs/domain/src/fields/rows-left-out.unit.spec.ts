import type { AppliedFix } from './value-fixes';
import { compileRowsLeftOut, rowNumberingOf, rowsLeftOut } from './rows-left-out';
import { compileFieldFixes } from './value-fixes';

const at = '2026-12-05T00:00:00.000Z';
const withHeader = rowNumberingOf({ sheet: null, input_has_header: true, rows_above_header: [] });
const noHeader = rowNumberingOf({ sheet: null, input_has_header: false, rows_above_header: [] });
let n = 0;
const rowFix = (kind: 'leave_out' | 'put_back', row: number, numbering = withHeader): AppliedFix => ({
  fix_id: `f${++n}`,
  field: '',
  fix: { kind, row, numbering },
  fixed_at: at,
});

describe('rows left out', () => {
  it('are numbered by the sheet, the header row and the rows above it, not by the encoding', () => {
    const base = { sheet: 'Orders', input_has_header: true, rows_above_header: ['Report'] };
    expect(rowNumberingOf(base)).toBe(rowNumberingOf({ ...base, encoding: 'windows-1252' } as typeof base));
    expect(rowNumberingOf(base)).not.toBe(rowNumberingOf({ ...base, sheet: 'Other' }));
    expect(rowNumberingOf(base)).not.toBe(rowNumberingOf({ ...base, input_has_header: false }));
    expect(rowNumberingOf(base)).not.toBe(rowNumberingOf({ ...base, rows_above_header: [] }));
  });

  it('fold the fixes in order under one numbering: the latest fix of a row decides', () => {
    expect(rowsLeftOut([rowFix('leave_out', 5), rowFix('leave_out', 2), rowFix('put_back', 5)], withHeader)).toEqual([2]);
    expect(rowsLeftOut([rowFix('leave_out', 2), rowFix('put_back', 2), rowFix('leave_out', 2)], withHeader)).toEqual([2]);
    // Left out under another numbering, a row is another one: it stays in, and comes back out when the rows are numbered so again.
    const fixes = [rowFix('leave_out', 4), rowFix('leave_out', 4, noHeader), rowFix('put_back', 4, noHeader)];
    expect(rowsLeftOut(fixes, noHeader)).toEqual([]);
    expect(rowsLeftOut(fixes, withHeader)).toEqual([4]);
  });

  it('cost the reads nothing when none is left out', () => {
    const run = { sheet: null, input_has_header: true, rows_above_header: [] };
    expect(compileRowsLeftOut({ ...run, value_fixes: [] })).toBeNull();
    expect(compileRowsLeftOut({ ...run, value_fixes: [rowFix('leave_out', 1), rowFix('put_back', 1)] })).toBeNull();
    expect(compileRowsLeftOut({ ...run, input_has_header: false, value_fixes: [rowFix('leave_out', 1)] })).toBeNull();
    const leftOut = compileRowsLeftOut({ ...run, value_fixes: [rowFix('leave_out', 3)] })!;
    expect([2, 3, 4].map(leftOut)).toEqual([false, true, false]);
  });

  it("change no field's values", () => {
    const field = { description: '', data_type: 'string', is_required: false } as const;
    expect(compileFieldFixes([rowFix('leave_out', 1), rowFix('put_back', 1)], '', field)).toBeNull();
  });
});
