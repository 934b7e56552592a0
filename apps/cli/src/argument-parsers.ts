import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import isLength from 'validator/lib/isLength';

/**
 * Parsers for command-line values. Each throws commander's InvalidArgumentError, which
 * commander reports with the argument or option it was given for (a usage error, exit 2).
 */

/** A non-empty string (an organization, key, schema, provider or run id). */
export function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('It must not be empty.');
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A run id: a UUID, in any letter case (the service's ids are lower case, as the API takes them). */
export function runId(value: string): string {
  if (!UUID.test(value.trim())) throw new InvalidArgumentError('A run id is a UUID (e.g. 0b4e7a36-1c1d-4a59-9a52-6f3f6c1b2a10).');
  return value.trim().toLowerCase();
}

/** The most characters an API key's name has (the admin API's API_KEY_NAME_MAX, apps/gateway/src/admin/commands/api-key.commands.ts). */
export const API_KEY_NAME_MAX = 100;

/**
 * An API key's name: up to API_KEY_NAME_MAX characters once trimmed, counted as the admin API counts them (validator's
 * isLength: an emoji is one character, not two UTF-16 units), so the CLI refuses no name the API would take.
 */
export function apiKeyName(value: string): string {
  const name = value.trim();
  if (!isLength(name, { max: API_KEY_NAME_MAX }))
    throw new InvalidArgumentError(`It has ${Array.from(name).length} characters; at most ${API_KEY_NAME_MAX} are allowed.`);
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
