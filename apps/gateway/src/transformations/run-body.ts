import type { ClassConstructor } from 'class-transformer';
import { addError, type FieldErrors, validateBody } from '../http/validate-body';
import type { RunOptionsDto } from './transformation.dto';

/** Members of the shared run options whose values are the caller's own data: validated here, never converted. */
const DATA_MEMBERS = ['metadata', 'column_labels'] as const;
const DATA_MEMBER_LABELS: Record<(typeof DATA_MEMBERS)[number], string> = { metadata: 'metadata', column_labels: 'column labels' };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Half of a surrogate pair without its other half (with the u flag a whole pair is one code point, not Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether any key or text in the caller's JSON has a lone surrogate. JSON can write one (`"\ud800"`), but it
 * is no character: it cannot be written as UTF-8, and webhook receivers would read it as U+FFFD or refuse the
 * delivery. Everything else in metadata is the caller's data, control characters included. (Depth is bounded by
 * the body's shape limits, checked before.)
 */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (isPlainObject(value)) return Object.entries(value).some(([key, v]) => LONE_SURROGATE.test(key) || hasLoneSurrogate(v));
  return false;
}

/**
 * Validates a run request body against its DTO without ever handing caller data to
 * class-transformer. `plainToInstance` treats nested plain objects as class instances: it
 * skips members named `constructor` or `__proto__` and members named like an Object method
 * (`toString`, `valueOf`, ...), and it calls `new value.constructor()`, which fails when
 * `constructor` is a member. So only the DTO's own scalar members (`members`) are given to
 * it, and a container given for one of them is replaced by an empty object, which fails the
 * member's scalar rule with the same message. `metadata` and `column_labels` are checked
 * here (an object or null) and kept exactly as JSON.parse made them: every member, whatever
 * its name, stays an own property (never assigned onto another object).
 */
export async function validateRunBody<T extends RunOptionsDto>(
  cls: ClassConstructor<T>,
  members: readonly string[],
  body: unknown,
): Promise<{ value: T; errors: FieldErrors }> {
  if (!isPlainObject(body)) return validateBody(cls, body);
  const scalars: Record<string, unknown> = {};
  for (const member of members) {
    if (!Object.hasOwn(body, member)) continue;
    const given = body[member];
    scalars[member] = typeof given === 'object' && given !== null ? {} : given;
  }
  const { value, errors } = await validateBody(cls, scalars);
  for (const member of DATA_MEMBERS) {
    if (!Object.hasOwn(body, member)) continue;
    const given = body[member];
    if (!(given === null || isPlainObject(given))) addError(errors, member, `The ${DATA_MEMBER_LABELS[member]} field must be an object.`);
    else if (member === 'metadata' && hasLoneSurrogate(given))
      addError(errors, member, 'The metadata field must not contain lone surrogates (text that is not valid Unicode).');
    else value[member] = given as never;
  }
  return { value, errors };
}
