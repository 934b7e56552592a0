import type { Decimal as DecimalClass } from 'decimal.js';
import { onFirstUse } from './on-first-use';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (on-first-use.ts): only a number past 2^53 needs it */
const Decimal = onFirstUse(() => (require('decimal.js') as { Decimal: typeof DecimalClass }).Decimal);
/* eslint-enable @typescript-eslint/no-require-imports */

/** 2^53: past it a double cannot hold every integer (RFC 8259 calls integers past it not interoperable). */
const EXACT_INTEGERS = 2 ** 53;

/** Whether the digits before any exponent of a decimal text are all zeros. */
const writesZero = (written: string): boolean => !/^[^eE]*[1-9]/.test(written);

/** An integer written in digits alone: an id, an account or order number, to be carried digit for digit. */
const INTEGER_LITERAL = /^[+-]?\d+$/;

/** Whether the double `n` is exactly the number the decimal text `written` says (decimal.js compares them). */
export function isExactly(written: string, n: number): boolean {
  return new (Decimal())(written).eq(n);
}

/**
 * Whether the double `n`, read from the decimal text `written` (as isDecimalNumber takes it), is
 * the number written. A JSON number is a double to the clients of the output, so a value it
 * cannot carry would be delivered as another number without a word: 100000000000000001 as
 * 100000000000000000 (three order numbers became one, and `unique` called them duplicates), and
 * 1e-400 as 0. Such a value is kept as text with a type problem instead (docs/decisions.md).
 *
 * An integer field's value must be the whole number the output writes (the double as String
 * writes it): digits alone are exact below 2^53; written with a fraction or an exponent
 * ("3.0", "1.5e1", "1.00000000000000001", which the double reads as 1) it is compared exactly.
 * A number field's value can lose what the writer meant only from 2^53 on when written in digits
 * alone (an id typed `number`), or as a zero read from a text that is not zero. Written with a
 * fraction or an exponent, it stands for a double, and digits past the double's are its own:
 * numpy writes 6.02214076e23 as 6.022140759999999870e+23, the same double.
 */
export function carriesExactly(written: string, n: number, integerField: boolean): boolean {
  if (n === 0) return writesZero(written);
  const small = n < EXACT_INTEGERS && n > -EXACT_INTEGERS;
  // The common case, with no look at the text: a number field's value below 2^53.
  if (small && !integerField) return true;
  if (INTEGER_LITERAL.test(written)) return small || isExactly(written, n);
  if (!integerField) return true;
  // Rare: decimal.js reads the two decimals exactly.
  const exact = new (Decimal())(written);
  return exact.isInteger() && exact.eq(n);
}

/**
 * A number as a plain decimal, never in exponent notation: what a CSV output writes for a number a
 * number_format read (docs/api.md: "a plain number with a `.` decimal point"). String writes
 * 1e-7 and 1e21 with an exponent; their digits are the same (the double's shortest), moved.
 */
export function plainNumberText(n: number): string {
  const text = String(n);
  return text.includes('e') ? new (Decimal())(text).toFixed() : text;
}
