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
