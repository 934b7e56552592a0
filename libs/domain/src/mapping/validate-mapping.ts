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
  const fields = new Set(fieldNames);
  let unreported = 0;
  const problem = (field: string, message: string) => {
    if (problems.length < MAX_PROBLEMS_SAID) problems.push({ field, message });
    else unreported++;
  };
  for (const [field, header] of Object.entries(mapping as Record<string, unknown>)) {
    if (!fields.has(field)) {
      problem(field, `${quoted(field)} is not a field of the target schema.`);
    } else if (header === null) {
      result[field] = null;
    } else if (typeof header !== 'string') {
      problem(field, `The column for ${quoted(field)} must be a column name or null.`);
    } else if (!headers.has(header)) {
      problem(field, `${quoted(header)} is not a column of the source file.`);
    } else {
      result[field] = header;
    }
  }
  if (unreported > 0) problems.push({ field: 'mapping_rule', message: `And ${unreported} more problems.` });
  return { mapping: result, problems };
}

/** Problems named one by one, at most: a mapping of thousands of unknown names is answered in a few lines. */
const MAX_PROBLEMS_SAID = 20;
/** Characters of a name quoted in a message, at most: the answer does not echo a huge request back. */
const MAX_NAME_SAID = 100;
const quoted = (name: string): string => JSON.stringify(name.length > MAX_NAME_SAID ? `${name.slice(0, MAX_NAME_SAID)}…` : name);
