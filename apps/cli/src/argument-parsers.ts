import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/**
 * Parsers for command-line values. Each throws commander's InvalidArgumentError, which
 * commander reports with the argument or option it was given for (a usage error, exit 2).
 */

/** A non-empty string (an organization, key, schema, provider or run id). */
export function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('It must not be empty.');
  return value;
}

/** A non-negative integer, or the word `null`. */
export function nonNegativeIntegerOrNull(value: string): number | null {
  if (value === 'null') return null;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('It must be a non-negative integer, or null.');
  return n;
}

/** An integer, 1 or more (a count, a limit). */
export function positiveInt(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('It must be an integer, 1 or more.');
  return n;
}

/** A position in the global event log: an integer, 1 or more. */
export const logPosition = positiveInt;

/** The word `null` stands for "none" (a webhook URL to remove). */
export function stringOrNull(value: string): string | null {
  return value === 'null' ? null : value;
}

/** The contents of a JSON file, parsed. */
export function jsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InvalidArgumentError(`Cannot read it: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`It is not valid JSON: ${(err as Error).message}`);
  }
}
