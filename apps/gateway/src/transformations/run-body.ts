import type { ClassConstructor } from 'class-transformer';
import { addError, type FieldErrors, hasLoneSurrogate, LONE_SURROGATES_PROBLEM, validateBody } from '../http/validate-body';
import type { RunOptionsDto } from './transformation.dto';

/** Members of the shared run options whose values are the caller's own data: validated here, never converted. */
const DATA_MEMBERS = ['metadata', 'column_labels'] as const;
const DATA_MEMBER_LABELS: Record<(typeof DATA_MEMBERS)[number], string> = { metadata: 'metadata', column_labels: 'column labels' };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a run request body against its DTO without ever handing caller data to
 * class-transformer. `plainToInstance` treats nested plain objects as class instances: it
 * skips members named `constructor` or `__proto__` and members named like an Object method
 * (`toString`, `valueOf`, ...), and it calls `new value.constructor()`, which fails when
 * `constructor` is a member. So only the DTO's own scalar members (`members`) are given to
 * it, and a container given for one of them is replaced by an empty object, which fails the
 * member's scalar rule with the same message. `metadata` and `column_labels` are checked
 * here (an object or null; metadata without lone surrogates: everything else in it is the caller's data, control
 * characters included) and kept exactly as JSON.parse made them: every member, whatever
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
    else if (member === 'metadata' && hasLoneSurrogate(given)) addError(errors, member, `The metadata field ${LONE_SURROGATES_PROBLEM}.`);
    else value[member] = given as never;
  }
  return { value, errors };
}
