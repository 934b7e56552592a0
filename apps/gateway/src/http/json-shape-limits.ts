import type { PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';

/**
 * Bounds on the shape of a JSON request body, checked before anything else reads it: how
 * deep objects and arrays nest (the body itself is level 1) and how many object members
 * the whole body has (array items do not count). The body's size is bounded separately
 * (MAX_JSON_BODY_BYTES); these bound the work and the recursion of whatever walks it later
 * (validation, storage, JSON writers), and keep documents within what every store accepts.
 */
export const JSON_BODY_LIMITS = { maxDepth: 32, maxKeys: 1000 } as const;

/**
 * A run's creation body: as deep, with room for a label for each of a schema's 1,000 fields
 * (`column_labels`, MAX_SCHEMA_FIELDS) beside the rest of the request and its metadata; under 1,000
 * keys a schema of 1,000 fields could have 997 of them labelled.
 */
export const RUN_BODY_LIMITS = { maxDepth: 32, maxKeys: 2000 } as const;

/**
 * A schema's body: as deep, with room for its fields' definitions. A file may have 1,000 columns
 * (MAX_COLUMNS) and a schema as many fields (MAX_SCHEMA_FIELDS), each a dozen members or more
 * with its transformations, and a picklist hundreds; under 1,000 keys a schema held about 120
 * realistic fields. The body's byte limit still bounds it (a key takes a few bytes at least).
 */
export const SCHEMA_BODY_LIMITS = { maxDepth: 32, maxKeys: 100_000 } as const;

/**
 * A review call's body (the hosted review page's JSON calls): as deep, with room for a mapping of a schema's 1,000
 * fields (MAX_SCHEMA_FIELDS) or a picklist fix of 1,000 values (MAX_FIX_TEXT / 10) beside the rest of the call.
 */
export const REVIEW_BODY_LIMITS = { maxDepth: 32, maxKeys: 2000 } as const;

type Limits = { maxDepth: number; maxKeys: number };

/** `metadata.a.0.b`; the body itself is `body`. */
const fieldName = (path: readonly string[]): string => (path.length === 0 ? 'body' : path.join('.'));

/**
 * What is wrong with the shape of `value`, as [field path, message] pairs: at most one
 * problem per limit (the first container nested too deep, in document order, the
 * object whose members pass the key limit, and the first number too big for a double). Iterative: a body nested thousands of levels
 * deep is judged without recursion.
 */
export function jsonShapeProblems(value: unknown, limits: Limits = JSON_BODY_LIMITS): Array<[field: string, message: string]> {
  const problems: Array<[string, string]> = [];
  let keys = 0;
  let tooDeep = false;
  let tooMany = false;
  let tooBig = false;
  const stack: Array<{ value: unknown; path: string[]; depth: number }> = [{ value, path: [], depth: 1 }];
  while (stack.length > 0 && !(tooDeep && tooMany && tooBig)) {
    const node = stack.pop()!;
    // A number past what a double holds (1e400) parses as Infinity, which would be echoed (metadata) as null.
    if (typeof node.value === 'number' && !Number.isFinite(node.value) && !tooBig) {
      problems.push([fieldName(node.path), 'Numbers must be within what a double holds (about ±1.8e308).']);
      tooBig = true;
    }
    if (node.value === null || typeof node.value !== 'object') continue;
    if (node.depth > limits.maxDepth) {
      if (!tooDeep)
        problems.push([fieldName(node.path), `Objects and arrays must not be nested more than ${limits.maxDepth} levels deep.`]);
      tooDeep = true;
      continue;
    }
    // Own enumerable members only; a member named `__proto__` (JSON.parse makes it an own property) is one like any other.
    const entries: Array<[string, unknown]> = Array.isArray(node.value)
      ? node.value.map((item, i): [string, unknown] => [String(i), item])
      : Object.entries(node.value);
    if (!Array.isArray(node.value)) {
      keys += entries.length;
      if (keys > limits.maxKeys && !tooMany) {
        problems.push([fieldName(node.path), `The request body must not have more than ${limits.maxKeys} object keys in total.`]);
        tooMany = true;
      }
    }
    for (let i = entries.length - 1; i >= 0; i--)
      stack.push({ value: entries[i][1], path: [...node.path, entries[i][0]], depth: node.depth + 1 });
  }
  return problems;
}

/**
 * `@Body(jsonShape)`: a body past JSON_BODY_LIMITS answers 422 in the validation envelope,
 * the field named by its path. Pipes run after the guards, so a caller without a valid
 * credential still gets 401 first.
 */
class JsonShapePipe implements PipeTransform<unknown, unknown> {
  constructor(private readonly limits: Limits) {}

  transform(value: unknown): unknown {
    return withinJsonShape(value, this.limits);
  }
}

/** The body itself when it is within `limits`; else 422 in the validation envelope, each field named by its path. */
export function withinJsonShape(value: unknown, limits: Limits): unknown {
  const problems = jsonShapeProblems(value, limits);
  // Object.fromEntries defines each field as an own property, whatever its name (`__proto__` included).
  if (problems.length > 0) throw ApiError.validation(Object.fromEntries(problems.map(([field, message]) => [field, [message]])));
  return value;
}

export const jsonShape = new JsonShapePipe(JSON_BODY_LIMITS);
/** `@Body(runJsonShape)` on the routes that create a run (RUN_BODY_LIMITS). */
export const runJsonShape = new JsonShapePipe(RUN_BODY_LIMITS);
/** `@Body(schemaJsonShape)` on the routes that save a schema (SCHEMA_BODY_LIMITS). */
export const schemaJsonShape = new JsonShapePipe(SCHEMA_BODY_LIMITS);
