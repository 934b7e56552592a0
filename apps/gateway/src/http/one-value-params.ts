/**
 * Query parameters that take one value each, sent as a list: `status[]=failed` or `status[0]=failed`
 * (how PHP and Laravel clients write lists) and `status=failed&status=completed` (a repeated name).
 * Fastify's parser names the first forms `status[]` and `status[0]`, which no list reads: left
 * alone they would be ignored, and the list answered unfiltered, as if the filter had matched.
 * Returns the validation messages, by parameter, for those of `names` sent so.
 */
export function paramsSentAsLists(query: Record<string, unknown>, names: readonly string[]): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const key of Object.keys(query)) {
    const bracket = key.indexOf('[');
    const name = bracket > 0 && key.endsWith(']') ? key.slice(0, bracket) : key;
    if (!names.includes(name) || (name === key && !Array.isArray(query[key]))) continue;
    fields[name] = [`The ${name.replace('_', ' ')} field takes one value: send ${name}= once.`];
  }
  return fields;
}

/**
 * A query parameter that names one of `allowed`, or undefined when absent. Any other value, an
 * empty one included (`?status=` answered the whole list, as if absent), puts its message in
 * `fields`: "The status field must be one of: …".
 */
export function choiceParam<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
  fields: Record<string, string[]>,
): T | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && (allowed as readonly string[]).includes(raw)) return raw as T;
  fields[name] = [`The ${name.replace('_', ' ')} field must be one of: ${allowed.join(', ')}.`];
  return undefined;
}
