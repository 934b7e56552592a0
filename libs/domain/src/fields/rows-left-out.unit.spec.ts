import type { AppliedFix } from './value-fixes';
import type { RowFix } from '@app/contracts';
import {
  compileRowsLeftOut,
  hiddenRowsPutBack,
  inSpans,
  rowDecisions,
  rowNumberingOf,
  rowsLeftOutOneByOne,
  type RowsLeftOutSource,
} from './rows-left-out';
import { compileFieldFixes } from './value-fixes';

const at = '2026-12-05T00:00:00.000Z';
const withHeader = rowNumberingOf({ sheet: null, input_has_header: true, rows_above_header: [] });
const noHeader = rowNumberingOf({ sheet: null, input_has_header: false, rows_above_header: [] });
let n = 0;
const applied = (fix: RowFix): AppliedFix => ({ fix_id: `f${++n}`, field: '', fix, fixed_at: at });
const rowFix = (kind: 'leave_out' | 'put_back', row: number, numbering = withHeader): AppliedFix => applied({ kind, row, numbering });
const hiddenFix = (kind: 'leave_out_hidden' | 'put_back_hidden', numbering = withHeader): AppliedFix => applied({ kind, numbering });
/** The rows left out one by one under the numbering the fixes are read in (withHeader or noHeader). */
const rowsLeftOut = (fixes: AppliedFix[], numbering: string): number[] =>
  rowsLeftOutOneByOne(rowDecisions({ sheet: null, input_has_header: numbering === withHeader, rows_above_header: [], value_fixes: fixes }));

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

  describe('every hidden row at once', () => {
    // A sheet of a header and data rows 1..100 000 hiding file rows 3-5 and 50-60 000 (data rows 2-4 and 49-59 999 under
    // the header), the list cut at 1,000, so the spans say them all.
    const sheet: RowsLeftOutSource = {
      sheet: 'People',
      input_has_header: true,
      rows_above_header: [],
      hidden_rows: [3, 4, 5, ...Array.from({ length: 997 }, (_, i) => 50 + i)],
      hidden_rows_total: 3 + 59_951,
      hidden_row_spans: [
        [3, 5],
        [50, 60_000],
      ],
    };
    const numbering = rowNumberingOf(sheet);
    const leftOut = (fixes: AppliedFix[], rows: number[]) => {
      const check = compileRowsLeftOut({ ...sheet, value_fixes: fixes });
      return rows.map((r) => check?.(r) ?? false);
    };

    it('leave_out_hidden leaves out every hidden data row, past the 1,000 listed, and only those', () => {
      const fixes = [hiddenFix('leave_out_hidden', numbering)];
      expect(leftOut(fixes, [1, 2, 4, 5, 48, 49, 1_000, 59_999, 60_000])).toEqual([
        false,
        true,
        true,
        false,
        false,
        true,
        true,
        true,
        false,
      ]);
      expect(rowDecisions({ ...sheet, value_fixes: fixes })).toMatchObject({
        hiddenLeftOut: true,
        hidden: [
          [2, 4],
          [49, 59_999],
        ],
      });
    });

    it('the latest fix of a row decides: a row put back after it is delivered, and leaving them out again takes it too', () => {
      const putBack = [hiddenFix('leave_out_hidden', numbering), rowFix('put_back', 50_000, numbering), rowFix('leave_out', 7, numbering)];
      expect(leftOut(putBack, [49, 50_000, 7])).toEqual([true, false, true]);
      const decisions = rowDecisions({ ...sheet, value_fixes: putBack });
      expect(hiddenRowsPutBack(decisions)).toEqual([50_000]);
      expect(rowsLeftOutOneByOne(decisions)).toEqual([7]);
      // Again: the row put back is out with the others; row 7 (not hidden) stays left out on its own.
      const again = [...putBack, hiddenFix('leave_out_hidden', numbering)];
      expect(leftOut(again, [50_000, 7])).toEqual([true, true]);
      expect(hiddenRowsPutBack(rowDecisions({ ...sheet, value_fixes: again }))).toEqual([]);
      // Put back, then left out on its own: one of the hidden rows left out again, not also listed one by one (a page
      // that lists only the first 1,000 hidden rows would count it twice), and put back with them.
      const alone = [...putBack, rowFix('leave_out', 50_000, numbering)];
      const aloneDecisions = rowDecisions({ ...sheet, value_fixes: alone });
      expect([rowsLeftOutOneByOne(aloneDecisions), hiddenRowsPutBack(aloneDecisions)]).toEqual([[7], []]);
      expect(leftOut(alone, [50_000])).toEqual([true]);
      expect(leftOut([...alone, hiddenFix('put_back_hidden', numbering)], [50_000, 7])).toEqual([false, true]);
      // A hidden row left out on its own before put_back_hidden comes back with the others.
      const back = [rowFix('leave_out', 3, numbering), hiddenFix('leave_out_hidden', numbering), hiddenFix('put_back_hidden', numbering)];
      expect(leftOut(back, [3, 4, 50_000])).toEqual([false, false, false]);
      expect(compileRowsLeftOut({ ...sheet, value_fixes: back })).toBeNull();
    });

    it("is made under the rows' numbering: under another header row the fix leaves nothing out", () => {
      const fixes = [hiddenFix('leave_out_hidden', numbering)];
      expect(compileRowsLeftOut({ ...sheet, input_has_header: false, value_fixes: fixes })).toBeNull();
    });

    it('leaves nothing out when the hidden rows are not all known (more spans than kept): the rows are delivered', () => {
      const unknown = { ...sheet, hidden_row_spans: null };
      expect(compileRowsLeftOut({ ...unknown, value_fixes: [hiddenFix('leave_out_hidden', numbering)] })).toBeNull();
    });

    it('finds a row in spans by a binary search', () => {
      const spans: Array<[number, number]> = [
        [1, 1],
        [3, 5],
        [9, 20],
      ];
      expect([0, 1, 2, 3, 5, 6, 8, 9, 20, 21].map((r) => inSpans(spans, r))).toEqual([
        false,
        true,
        false,
        true,
        true,
        false,
        false,
        true,
        true,
        false,
      ]);
      expect(inSpans([], 1)).toBe(false);
    });
  });
});
