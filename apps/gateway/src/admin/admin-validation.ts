import {
  fieldFormatsOf,
  HIDDEN_CONTROLS_PROBLEM,
  hasHiddenControls,
  validateFieldFormats,
  validateFieldValidators,
  validatePicklistAndDescriptions,
  validateTransformations,
  validateUniqueWith,
} from '@app/domain';
import isLength from 'validator/lib/isLength';
import type { AllowedValue, FieldDefinition } from '@app/contracts';
import { addError, BODY_NOT_AN_OBJECT, callbackUrlProblem, type FieldErrors } from '../http/validate-body';
import { ApiError } from '../http/api-error';

const FIELD_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function requireString(
  body: Record<string, unknown>,
  key: string,
  errors: FieldErrors,
  opts: { optional?: boolean; max?: number; shownAsName?: boolean } = {},
): string | null {
  const v = body[key];
  // A name of blanks alone shows as nothing: as absent (Laravel's TrimStrings makes it so).
  if (v === undefined || v === null || v === '' || (opts.shownAsName && typeof v === 'string' && v.trim() === '')) {
    if (!opts.optional) addError(errors, key, `The ${key.replace(/_/g, ' ')} field is required.`);
    return null;
  }
  if (typeof v !== 'string') {
    addError(errors, key, `The ${key.replace(/_/g, ' ')} field must be a string.`);
    return null;
  }
  // Characters as a person counts them (an emoji is one), as the filename's and content's checks count them: not UTF-16 units.
  if (!isLength(v, { max: opts.max ?? 255 })) {
    addError(errors, key, `The ${key.replace(/_/g, ' ')} field must not be greater than ${opts.max ?? 255} characters.`);
    return null;
  }
  if (opts.shownAsName && hasHiddenControls(v)) {
    addError(errors, key, `The ${key.replace(/_/g, ' ')} field ${HIDDEN_CONTROLS_PROBLEM}.`);
    return null;
  }
  return v;
}

export function requireUrl(
  body: Record<string, unknown>,
  key: string,
  errors: FieldErrors,
  production: boolean,
  allowed?: string[],
): string | null {
  const problem = callbackUrlProblem(body[key], production, allowed);
  if (problem) addError(errors, key, `The ${key.replace(/_/g, ' ')} field ${problem}`);
  return problem ? null : ((body[key] as string | undefined) ?? null);
}

/** The most fields a schema may have: a file has at most 1,000 columns by default (MAX_COLUMNS). */
export const MAX_SCHEMA_FIELDS = 1000;

/** Checks a schema's `fields` map (description, data_type, is_required required; label, format, transformations optional). */
export function validateSchemaFields(fields: unknown, errors: FieldErrors): Record<string, FieldDefinition> | null {
  if (!isObj(fields) || Object.keys(fields).length === 0) {
    addError(errors, 'fields', 'The fields field must be an object with at least one field.');
    return null;
  }
  if (Object.keys(fields).length > MAX_SCHEMA_FIELDS) {
    addError(errors, 'fields', `A schema has at most ${MAX_SCHEMA_FIELDS} fields.`);
    return null;
  }
  const out: Record<string, FieldDefinition> = {};
  for (const [name, def] of Object.entries(fields)) {
    const at = `fields.${name}`;
    if (!FIELD_NAME_RE.test(name)) {
      addError(errors, at, 'A field name must start with a letter or _ and use letters, digits, _ . - (max 100).');
      continue;
    }
    // Field names become member names of records and rows; assigning `__proto__` would set a prototype instead.
    if (name === '__proto__') {
      addError(errors, at, 'A field name must not be __proto__.');
      continue;
    }
    if (!isObj(def)) {
      addError(errors, at, 'A field definition must be an object.');
      continue;
    }
    if (typeof def.description !== 'string') addError(errors, `${at}.description`, 'The description is required and must be a string.');
    if (typeof def.data_type !== 'string' || !def.data_type)
      addError(errors, `${at}.data_type`, 'The data type is required and must be a string.');
    if (typeof def.is_required !== 'boolean')
      addError(errors, `${at}.is_required`, 'The is required flag is required and must be true or false.');
    for (const opt of ['label', 'format'] as const) {
      if (def[opt] !== undefined && def[opt] !== null && typeof def[opt] !== 'string')
        addError(errors, `${at}.${opt}`, `The ${opt} must be a string or null.`);
    }
    if (typeof def.label === 'string' && hasHiddenControls(def.label))
      addError(errors, `${at}.label`, `The label ${HIDDEN_CONTROLS_PROBLEM}.`);
    for (const problem of validateTransformations(def.transformations)) addError(errors, `${at}.transformations`, problem);
    for (const { at: where, problem } of validatePicklistAndDescriptions(def)) addError(errors, `${at}.${where}`, problem);
    for (const { at: where, problem } of validateFieldFormats(def)) addError(errors, `${at}.${where}`, problem);
    for (const { at: where, problem } of validateFieldValidators(def)) addError(errors, `${at}.${where}`, problem);
    out[name] = {
      description: def.description as string,
      data_type: def.data_type as string,
      is_required: def.is_required as boolean,
      label: (def.label as string | null | undefined) ?? null,
      format: (def.format as string | null | undefined) ?? null,
      ...(def.transformations ? { transformations: def.transformations as FieldDefinition['transformations'] } : {}),
      ...(def.allowed_values
        ? {
            allowed_values: (def.allowed_values as AllowedValue[]).map((a) => ({
              value: a.value,
              label: a.label ?? null,
              ...(a.labels ? { labels: a.labels } : {}),
            })),
          }
        : {}),
      ...(def.descriptions ? { descriptions: def.descriptions as Record<string, string> } : {}),
      ...fieldFormatsOf(def),
      ...validatorsOf(def),
    };
  }
  return out;
}

/** The validators a field definition sets (docs/api.md, "Validators"), checked by validateFieldValidators. */
function validatorsOf(def: Record<string, unknown>): Partial<FieldDefinition> {
  const out: Partial<FieldDefinition> = {};
  for (const key of ['pattern', 'min', 'max', 'min_length', 'max_length'] as const) {
    if (def[key] !== undefined && def[key] !== null) (out as Record<string, unknown>)[key] = def[key];
  }
  if (def.unique === true) out.unique = true;
  return out;
}

/** Checks a schema's `unique_with` (sets of its field names unique together); an empty list when absent. */
export function validateSchemaUniqueWith(value: unknown, fields: Record<string, FieldDefinition> | null, errors: FieldErrors): string[][] {
  for (const { at, problem } of validateUniqueWith(value, Object.keys(fields ?? {}))) addError(errors, at, problem);
  return Array.isArray(value) ? (value as string[][]) : [];
}

/**
 * The body as an object. One that is not an object is refused at once with that alone: its members would
 * each say they are missing, which is not what is wrong.
 */
export const asObject = (body: unknown): Record<string, unknown> => {
  if (!isObj(body)) throw ApiError.validation({ body: [BODY_NOT_AN_OBJECT] });
  return body;
};
