import type { MappingRule } from '@app/contracts';

/** JSON Schema of a mapping answer: `{mapping: {<field>: <one of the headers> | null}}`. */
export function mappingSuggestionJsonSchema(fieldNames: string[], headers: string[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['mapping'],
    properties: {
      mapping: {
        type: 'object',
        additionalProperties: false,
        required: fieldNames,
        properties: Object.fromEntries(fieldNames.map((f) => [f, { anyOf: [{ type: 'string', enum: headers }, { type: 'null' }] }])),
      },
    },
  };
}

export interface CheckedSuggestion {
  /** Only the usable entries: known field -> existing header, each header at most once. */
  mapping: Partial<MappingRule>;
  /** What was dropped and why, for the logs and the reviewer's notice. */
  dropped: string[];
}

/**
 * Keeps from a provider's mapping answer only what can be trusted: known fields mapped
 * to headers that exist (or explicitly to null), each header used once. Pure.
 */
export function checkSuggestedMapping(answer: unknown, fieldNames: string[], headers: string[]): CheckedSuggestion {
  const mappingPart = answer && typeof answer === 'object' ? (answer as { mapping?: unknown }).mapping : undefined;
  if (!mappingPart || typeof mappingPart !== 'object' || Array.isArray(mappingPart)) {
    return { mapping: {}, dropped: ['the answer has no "mapping" object'] };
  }
  const known = new Set(fieldNames);
  const existing = new Set(headers);
  const used = new Set<string>();
  const mapping: Partial<MappingRule> = {};
  const dropped: string[] = [];
  for (const [field, header] of Object.entries(mappingPart as Record<string, unknown>)) {
    if (!known.has(field)) dropped.push(`unknown field "${field}"`);
    else if (header === null) mapping[field] = null;
    else if (typeof header !== 'string') dropped.push(`"${field}": not a header name`);
    else if (!existing.has(header)) dropped.push(`"${field}": unknown header "${header}"`);
    else if (used.has(header)) dropped.push(`"${field}": header "${header}" already used`);
    else {
      mapping[field] = header;
      used.add(header);
    }
  }
  return { mapping, dropped };
}

/**
 * The provider's suggestion where it named a header; our heuristic for the fields it left
 * open, as long as that header is not already taken. Pure.
 */
export function mergeSuggestions(ai: Partial<MappingRule>, heuristic: MappingRule): MappingRule {
  const merged: MappingRule = {};
  const taken = new Set(Object.values(ai).filter((h): h is string => typeof h === 'string'));
  for (const field of Object.keys(heuristic)) {
    const fromAi = ai[field];
    if (typeof fromAi === 'string') merged[field] = fromAi;
    else {
      const h = heuristic[field];
      merged[field] = h && !taken.has(h) ? h : null;
      if (merged[field]) taken.add(h as string);
    }
  }
  return merged;
}
