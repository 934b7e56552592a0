import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { MemoryBlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { MappingRule } from '@app/contracts';
import type { SchemaRecord } from '@app/directory';
import { suggestMapping, type CellProblem, type RunState } from '@app/domain';
import { countMappingProblems, findDuplicateRows, inspectSourceFile } from '@app/run-source';
import { ApiError } from '../../http/api-error';

/** The largest file "try it" reads: a sample, not a run (a run takes files of any size). */
export const MAX_TRIAL_BYTES = 5 * 1024 * 1024;

export interface SchemaTrial {
  headers: string[];
  input_has_header: boolean;
  /** The rows above the header left out as a title (a run's review lists them too), each as its values. */
  rows_above_header: string[];
  format: 'delimited' | 'xlsx';
  delimiter: string | null;
  encoding: string;
  rows_checked: number;
  suggested_mapping: MappingRule;
  problems: { rows_with_problems: number; by_field: Record<string, Record<CellProblem, number>> };
}

const TRIAL_KEY = 'trial/source';

/**
 * "Try it" (docs/console.md): what a run of this schema would make of a file, without a run.
 * The file goes through exactly what a run's goes through (run-source's inspection with the
 * hostile-file limits, the heuristic mapping suggestion, the review's problem count), read
 * from memory instead of storage; nothing is stored or recorded.
 */
@Injectable()
export class SchemaTrialService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async try(schema: SchemaRecord, file: Buffer, filename: string): Promise<SchemaTrial> {
    if (file.length === 0) throw trialRefused('source_file_empty', 'The file is empty. Choose a file with a header row and some data.');
    if (file.length > MAX_TRIAL_BYTES)
      throw trialRefused('trial_file_too_large', 'Try it reads files of up to 5 MB: try a sample of the file.');
    // A store of its own per trial, in memory: the reading stores what it learns (a row index)
    // beside the file as a run's does, and nothing of it outlives the answer.
    const blobs = new MemoryBlobStore();
    await blobs.put(TRIAL_KEY, Readable.from([file]));
    const run = trialRun(schema, filename);
    const inspected = await inspectSourceFile(blobs, run, this.config.tableLimits, () => undefined);
    if ('failed' in inspected)
      throw trialRefused(inspected.failed.code ?? 'unreadable_file', inspected.failed.message ?? 'The file could not be read as a table.');
    const parsed = inspected.parsed;
    const mapping = suggestMapping(schema.fields, parsed.source_headers);
    const read: RunState = {
      ...run,
      source_headers: parsed.source_headers,
      input_has_header: parsed.input_has_header,
      // A title above the header is left out of the rows counted, as a run's reads leave it out.
      rows_above_header: parsed.rows_above_header ?? [],
      source_format: parsed.source_format,
      delimiter: parsed.delimiter,
      encoding: parsed.encoding,
      total_rows: parsed.total_rows,
      // A workbook's problems are counted on the sheet its headers came from.
      sheet: parsed.sheet ?? null,
      // Its merged cells given to each row they cover, as a run's reads give them.
      merged_cells: parsed.merged_cells ?? [],
      // And read again under the limits the inspection applied (a workbook's reader checks them again).
      read_limits: parsed.read_limits ?? null,
    };
    // Values that must be unique: the duplicates pass first, as a run's review does.
    const duplicates = await findDuplicateRows(blobs, read, mapping);
    const tally = await countMappingProblems(blobs, read, mapping, undefined, undefined, duplicates);
    return {
      headers: parsed.source_headers,
      input_has_header: parsed.input_has_header,
      rows_above_header: parsed.rows_above_header ?? [],
      format: parsed.source_format,
      delimiter: parsed.delimiter,
      encoding: parsed.encoding,
      rows_checked: tally?.rows_checked ?? 0,
      suggested_mapping: mapping,
      problems: { rows_with_problems: tally?.rows_with_problems ?? 0, by_field: tally?.problems_by_field_and_kind ?? {} },
    };
  }
}

const trialRefused = (code: string, message: string) => new ApiError(422, code, 'source_file', message);

/** The few facts of a run that reading a source needs, for a file that is no run's. */
function trialRun(schema: SchemaRecord, filename: string): RunState {
  return {
    id: 'trial',
    organization_id: schema.organization_id,
    schema: { id: schema.id, name: schema.name, fields: schema.fields, unique_with: schema.unique_with ?? [] },
    filename,
    input_has_header_override: null,
    source_key: TRIAL_KEY,
    rows_key: TRIAL_KEY,
    value_fixes: [],
  } as unknown as RunState;
}
