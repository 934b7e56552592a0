import type { Readable } from 'node:stream';
import { openDelimited } from './delimited-reader';
import type { OpenedTable, SourceFormat } from './table-reader';
import { openXlsx } from './xlsx-reader';

/** Opens a stored source with the reader its format needs. */
export function openTable(input: Readable, format: SourceFormat, delimiter: string | null): Promise<OpenedTable> {
  return format === 'xlsx' ? openXlsx(input) : openDelimited(input, delimiter);
}
