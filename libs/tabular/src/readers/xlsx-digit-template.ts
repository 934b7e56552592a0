/**
 * Number formats that pad a whole number with zeros: a ZIP code (`00000`, Excel's "Zip Code"), ZIP+4
 * (`00000-0000`), a social security number (`000-00-0000`), an article or account code (`000000`). The
 * cell holds the number (1234) and the sheet shows `01234`; read as the number, a ZIP code of New England
 * lost its leading zero, and no check could tell. Only codes made of `0` placeholders and literal text
 * (`-`, blanks, brackets, `/`, quoted or escaped characters) are templates: `#`, decimals, sections,
 * colours and conditions are left to the plain number, as is any value other than a whole number from 0.
 */

/** A template's parts left to right: a digit placeholder (`0`) or literal text. */
export type DigitTemplate = readonly (typeof PLACEHOLDER | string)[];
const PLACEHOLDER = 0;

const LITERALS = new Set(['-', ' ', '(', ')', '/']);

/** The template of a custom format code, or null when the code is anything else. Pure. */
export function digitTemplateOf(code: string): DigitTemplate | null {
  const parts: (typeof PLACEHOLDER | string)[] = [];
  let placeholders = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '0') {
      parts.push(PLACEHOLDER);
      placeholders++;
    } else if (c === '\\' && i + 1 < code.length) parts.push(code[++i]);
    else if (c === '"') {
      const end = code.indexOf('"', i + 1);
      if (end === -1) return null;
      parts.push(code.slice(i + 1, end));
      i = end;
    } else if (LITERALS.has(c)) parts.push(c);
    else return null;
  }
  // One placeholder alone pads nothing: that is the number as it is (built-in format 1 is `0`).
  return placeholders > 1 || (placeholders === 1 && parts.length > 1) ? parts : null;
}

/**
 * A number shown through its template, as Excel shows it: digits fill the placeholders from the right,
 * zeros where the number has none, and digits past the placeholders go before the first. Null when the
 * number is not a whole one from 0 below 10^15 (Excel would round a fraction away and print a minus sign
 * outside the template: the plain number keeps it all).
 */
export function digitTemplateText(n: number, template: DigitTemplate): string | null {
  if (!Number.isInteger(n) || n < 0 || n >= 1e15) return null;
  const placeholders = template.reduce<number>((count, part) => count + (part === PLACEHOLDER ? 1 : 0), 0);
  const digits = String(n).padStart(placeholders, '0');
  let next = digits.length - placeholders; // the digits past the placeholders all go to the first
  let out = '';
  let first = true;
  for (const part of template) {
    if (part !== PLACEHOLDER) out += part;
    else if (first) {
      out += digits.slice(0, next + 1);
      next++;
      first = false;
    } else out += digits[next++];
  }
  return out;
}
