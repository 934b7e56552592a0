import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import type { RunState } from '@app/domain';

/**
 * Stores `csv` (comma-separated, a header row first) as a run's source and rows, and returns the
 * run as ingestion leaves it for the readers: delimited, UTF-8, its headers and the schema's
 * fields. `more` adds or replaces what a test needs (output_format, mapping_rule, value_fixes).
 */
export async function storedCsvRun(
  blobs: BlobStore,
  id: string,
  csv: string | string[],
  fields: Record<string, FieldDefinition>,
  headers: string[],
  more: Record<string, unknown> = {},
): Promise<RunState> {
  const key = `runs/${id}/source`;
  await blobs.put(key, Readable.from(typeof csv === 'string' ? [csv] : csv));
  return {
    id,
    schema: { fields },
    source_headers: headers,
    source_key: key,
    rows_key: key,
    source_format: 'delimited',
    delimiter: ',',
    encoding: 'utf-8',
    input_has_header: true,
    ...more,
  } as unknown as RunState;
}
