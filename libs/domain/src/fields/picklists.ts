import { distance } from 'fastest-levenshtein';
import type { AllowedValue, FieldDefinition } from '@app/contracts';
import { LOCALES } from '../run/locale';
import { HIDDEN_CONTROLS_PROBLEM, hasHiddenControls } from './shown-names';

/** How many values a picklist may allow, and how long a value or label may be. */
export const MAX_ALLOWED_VALUES = 500;
const MAX_VALUE_CHARS = 200;

/** Checks a field's `allowed_values` (required for data_type `enum`, refused for any other) and `descriptions`. Pure. */
export function validatePicklistAndDescriptions(def: Record<string, unknown>): { at: string; problem: string }[] {
  const problems: { at: string; problem: string }[] = [];
  const allowed = def.allowed_values;
  if (def.data_type === 'enum') {
    if (!Array.isArray(allowed) || allowed.length === 0 || allowed.length > MAX_ALLOWED_VALUES) {
      problems.push({ at: 'allowed_values', problem: `An enum field needs allowed_values: 1 to ${MAX_ALLOWED_VALUES} of {value, label}.` });
    } else {
      const seen = new Set<string>();
      allowed.forEach((a: unknown, i) => {
        const o = (a && typeof a === 'object' ? a : {}) as Record<string, unknown>;
        if (typeof o.value !== 'string' || o.value === '' || o.value.length > MAX_VALUE_CHARS)
          problems.push({ at: `allowed_values.${i}.value`, problem: `A value must be text of 1 to ${MAX_VALUE_CHARS} characters.` });
        // Cells are compared trimmed, so a value with blanks around it could never be met.
        else if (o.value.trim() !== o.value)
          problems.push({
            at: `allowed_values.${i}.value`,
            problem: 'A value must not begin or end with blanks (cells are compared trimmed).',
          });
        else if (seen.has(o.value)) problems.push({ at: `allowed_values.${i}.value`, problem: `The value "${o.value}" is listed twice.` });
        else seen.add(o.value);
        if (o.label !== undefined && o.label !== null && (typeof o.label !== 'string' || o.label.length > MAX_VALUE_CHARS))
          problems.push({
            at: `allowed_values.${i}.label`,
            problem: `A label must be text of at most ${MAX_VALUE_CHARS} characters, or null.`,
          });
        else if (typeof o.label === 'string' && hasHiddenControls(o.label))
          problems.push({ at: `allowed_values.${i}.label`, problem: `A label ${HIDDEN_CONTROLS_PROBLEM}.` });
        if (o.labels !== undefined)
          problems.push(...byLocaleProblems(o.labels, `allowed_values.${i}.labels`, 'label', MAX_VALUE_CHARS, true));
      });
    }
  } else if (allowed !== undefined) {
    problems.push({ at: 'allowed_values', problem: 'allowed_values is only for fields of data_type "enum".' });
  }
  if (def.descriptions !== undefined) problems.push(...byLocaleProblems(def.descriptions, 'descriptions', 'description'));
  return problems;
}

/** Checks an object of locale to text (`descriptions`, an allowed value's `labels`). Pure. */
function byLocaleProblems(
  texts: unknown,
  at: string,
  what: string,
  maxChars = Infinity,
  shownAsName = false,
): { at: string; problem: string }[] {
  if (!texts || typeof texts !== 'object' || Array.isArray(texts))
    return [{ at, problem: `${at.split('.').pop()} must be an object of locale to text.` }];
  const problems: { at: string; problem: string }[] = [];
  for (const [locale, text] of Object.entries(texts)) {
    if (!(LOCALES as readonly string[]).includes(locale))
      problems.push({ at: `${at}.${locale}`, problem: `Unknown locale; known: ${LOCALES.join(', ')}.` });
    else if (typeof text !== 'string' || text.length > maxChars)
      problems.push({
        at: `${at}.${locale}`,
        problem: maxChars === Infinity ? `A ${what} must be text.` : `A ${what} must be text of at most ${maxChars} characters.`,
      });
    else if (shownAsName && hasHiddenControls(text))
      problems.push({ at: `${at}.${locale}`, problem: `A ${what} ${HIDDEN_CONTROLS_PROBLEM}.` });
  }
  return problems;
}

/** The label reviewers see for an allowed value in a locale: that locale's, else the default label, else the value. Pure. */
export const allowedValueLabel = (a: AllowedValue, locale: string): string => a.labels?.[locale] ?? a.label ?? a.value;

/** The allowed values of a picklist field (none for other fields). */
export const allowedValuesOf = (field: FieldDefinition): AllowedValue[] => (field.data_type === 'enum' ? (field.allowed_values ?? []) : []);

/** What a file may call an allowed value: the value itself and its labels in every language. */
const namesOf = (a: AllowedValue): string[] => [a.value, a.label ?? '', ...Object.values(a.labels ?? {})];

const simplified = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * The allowed value a source value most likely means, or null: an exact match, then a match
 * ignoring case (value or label), then a close one: the same letters and digits once accents,
 * case and punctuation are gone, an abbreviation ("Plat." for platinum), or a spelling at most
 * a fifth of its length away ("Platnum"). Pure.
 */
export function suggestAllowedValue(source: string, allowed: readonly AllowedValue[]): string | null {
  const t = source.trim();
  if (t === '') return null;
  const exact = allowed.find((a) => a.value === t);
  if (exact) return exact.value;
  const lower = t.toLocaleLowerCase();
  const caseless = allowed.find((a) => namesOf(a).some((name) => name.toLocaleLowerCase() === lower));
  if (caseless) return caseless.value;
  const s = simplified(t);
  if (s === '') return null;
  const names = allowed.map((a) => ({ value: a.value, names: namesOf(a).map(simplified).filter(Boolean) }));
  const same = names.find((n) => n.names.includes(s));
  if (same) return same.value;
  // An abbreviation: a unique allowed value starting with it (at least 3 characters).
  if (s.length >= 3) {
    const starting = names.filter((n) => n.names.some((name) => name.startsWith(s)));
    if (starting.length === 1) return starting[0].value;
  }
  let best: { value: string; d: number } | null = null;
  for (const n of names)
    for (const name of n.names) {
      const d = distance(s, name);
      if (d <= Math.floor(Math.max(s.length, name.length) / 5) && (!best || d < best.d)) best = { value: n.value, d };
    }
  return best?.value ?? null;
}
