import type { RowFix, ValueFix } from '@app/contracts';

/** The kinds of fix of whole rows: one row's, and every hidden row's. */
export const ROW_FIX_KINDS: readonly string[] = ['leave_out', 'put_back', 'leave_out_hidden', 'put_back_hidden'];

/** A fix of whole rows rather than of a field's values (recorded with `field` ""): rows-left-out.ts reads these. */
export const isRowFix = (fix: ValueFix): fix is RowFix => ROW_FIX_KINDS.includes(fix.kind);
