import { createHash } from 'node:crypto';
import type { FieldDefinition, MappingRule, ReviewNotice } from '@app/contracts';
import { suggestMapping } from './suggest-mapping';

/**
 * Names a set of source headers, whatever their order: the key under which a confirmed
 * mapping is remembered (a file with the same columns in another order gets it too).
 */
export function headersKey(headers: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([...headers].sort()))
    .digest('base64url');
}

/** The review's notice that the columns were matched as approved before (the reviewer should still look). */
export const MAPPING_REMEMBERED_NOTICE: ReviewNotice = {
  code: 'mapping_remembered',
  message: 'The columns were matched as in the last approved file with the same columns.',
};

/**
 * A remembered mapping applied to a file's columns: each field it names keeps its column where the file has it (a
 * field no longer in the schema is left out), one it left without a column stays so, and every other field (added to
 * the schema since, or whose column the file no longer has) gets what the heuristic suggests among the columns the
 * remembered mapping leaves free: no column is given to a second field while another goes unread.
 */
export function mappingFromRemembered(
  fields: Record<string, FieldDefinition>,
  remembered: MappingRule,
  headers: readonly string[],
): MappingRule {
  const kept = Object.fromEntries(
    Object.entries(remembered).filter(([field, column]) => Object.hasOwn(fields, field) && (column === null || headers.includes(column))),
  );
  const used = new Set(Object.values(kept).filter((column): column is string => column !== null));
  const rest = Object.fromEntries(Object.entries(fields).filter(([field]) => !Object.hasOwn(kept, field)));
  return {
    ...suggestMapping(
      rest,
      headers.filter((column) => !used.has(column)),
    ),
    ...kept,
  };
}
