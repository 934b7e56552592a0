import { createHash, hash } from 'node:crypto';
import { cellOf, type FieldPlan } from '@app/domain';

/** What the duplicates pass compares: a row's key for a set of fields that must be unique (together). */

/** SHA-256 of a key: crypto.hash (one call, Node 20.12+) where there is one. */
export const sha256: (key: string) => Buffer =
  typeof hash === 'function' ? (key) => hash('sha256', key, 'buffer') : (key) => createHash('sha256').update(key).digest();

/** A cell's value as uniqueness compares it: as typed ("1.0" and "1" are the same number), text trimmed; null when empty. */
function keyPart(p: FieldPlan, row: string[], rowNumber: number): string | null {
  // Only the typed value counts: the pattern, range and length checks would not change it.
  const { value } = p.typeCheck(cellOf(p, row, rowNumber));
  if (value === null) return null;
  const text = typeof value === 'string' ? value.trim() : String(value);
  return text === '' ? null : text;
}

/** A row's key for a set of fields: null when every field of the set is empty (such rows are never duplicates). */
export function compileKey(fields: FieldPlan[]): (row: string[], rowNumber: number) => string | null {
  if (fields.length === 1) return (row, n) => keyPart(fields[0], row, n);
  return (row, n) => {
    const parts: (string | null)[] = new Array<string | null>(fields.length);
    let empty = true;
    for (let i = 0; i < fields.length; i++) {
      parts[i] = keyPart(fields[i], row, n);
      if (parts[i] !== null) empty = false;
    }
    return empty ? null : JSON.stringify(parts);
  };
}

/**
 * A key that is a finite number as JavaScript writes it ("12", "1.5", "-3e+21", not "012" or
 * "1.50"): that number, else null. Keys are equal exactly when these numbers are, so a set of one
 * field keeps its numbers themselves (an id column, exact and without a digest). A key's text
 * alone decides, so a number typed from "1.0" and a text "1" of another row still meet.
 */
export function canonicalNumber(key: string): number | null {
  const n = Number(key);
  return Number.isFinite(n) && String(n) === key ? n : null;
}
