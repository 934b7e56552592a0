import type { RowFix, ValueFix } from '@app/contracts';

/** A fix of a whole row rather than of a field's values (recorded with `field` ""): rows-left-out.ts reads these. */
export const isRowFix = (fix: ValueFix): fix is RowFix => fix.kind === 'leave_out' || fix.kind === 'put_back';
