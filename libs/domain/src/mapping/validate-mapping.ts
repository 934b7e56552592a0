import type { MappingRule } from '@app/contracts';

export interface MappingProblem {
  field: string;
  message: string;
}

/**
 * Checks a mapping against the schema's field names and the file's headers, and returns
 * it complete (every schema field present, unmapped ones null). Pure.
 */
export function normalizeMapping(
  mapping: unknown,
  fieldNames: string[],
  sourceHeaders: string[],
): { mapping: MappingRule; problems: MappingProblem[] } {
  const problems: MappingProblem[] = [];
  const result: MappingRule = Object.fromEntries(fieldNames.map((f) => [f, null]));
  if (mapping === null || typeof mapping !== 'object' || Array.isArray(mapping)) {
    return { mapping: result, problems: [{ field: 'mapping_rule', message: 'The mapping must be an object.' }] };
  }
  const headers = new Set(sourceHeaders);
  for (const [field, header] of Object.entries(mapping as Record<string, unknown>)) {
    if (!fieldNames.includes(field)) {
      problems.push({ field, message: `"${field}" is not a field of the target schema.` });
    } else if (header === null) {
      result[field] = null;
    } else if (typeof header !== 'string' || !headers.has(header)) {
      problems.push({ field, message: `${JSON.stringify(header)} is not a column of the source file.` });
    } else {
      result[field] = header;
    }
  }
  return { mapping: result, problems };
}
