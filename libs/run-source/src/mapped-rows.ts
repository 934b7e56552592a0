import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { mapRow, planFields, type DuplicateRows, type FieldPlan, type MappedRow, type RunState } from '@app/domain';
import { openTable } from '@app/tabular';

/** The encoding the rows were read in first (delimited files), so every later read decodes them the same way. */
const encodingOf = (run: RunState): string | null => (run.source_format === 'xlsx' ? null : run.encoding);

export interface PlannedRows {
  plan: FieldPlan[];
  /** Data rows (the header row skipped) as read, in batches, streamed from the stored source. */
  batches: AsyncGenerator<string[][]>;
}

export interface MappedSource {
  plan: FieldPlan[];
  /** Data rows (the header row skipped) in target shape, in batches, streamed from the stored source. */
  batches: AsyncGenerator<MappedRow[]>;
}

/**
 * A run's stored data rows with the plan of a mapping (columns resolved, transformations,
 * the reviewer's fixes and checks compiled once), for a reader that maps them itself and
 * counts the rows (cellOf needs each row's number, from 1). `duplicates` is the duplicates
 * pass's answer for the same run, mapping and fixes, when the schema asks for unique values.
 * Stopping the iteration early closes the underlying blob stream.
 */
export async function readPlannedRows(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  duplicates: DuplicateRows | null = null,
): Promise<PlannedRows> {
  const plan = planFields(run.schema.fields, mapping, run.source_headers, run.value_fixes ?? [], duplicates);
  const input = await blobs.openRead(run.rows_key ?? run.source_key);
  const table = await openTable(input, run.source_format ?? 'delimited', run.delimiter, {
    encoding: encodingOf(run),
    alreadyIngested: true,
    sheet: run.sheet,
  });

  async function* batches(): AsyncGenerator<string[][]> {
    let skipHeader = run.input_has_header === true;
    try {
      for await (const batch of table.batches) {
        if (skipHeader && batch.length > 0) {
          skipHeader = false;
          yield batch.slice(1);
        } else {
          yield batch;
        }
      }
    } finally {
      input.destroy();
    }
  }
  return { plan, batches: batches() };
}

/**
 * Reads a run's stored source through a mapping: the one way both the review preview
 * and the final output see the data, so what a reviewer is shown is what gets written.
 * Stopping the iteration early closes the underlying blob stream.
 */
export async function readMappedSource(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  options: { typed: boolean; duplicates?: DuplicateRows | null },
): Promise<MappedSource> {
  const { plan, batches: rows } = await readPlannedRows(blobs, run, mapping, options.duplicates ?? null);
  async function* batches(): AsyncGenerator<MappedRow[]> {
    try {
      let rowNumber = 0;
      for await (const batch of rows) yield batch.map((row) => mapRow(row, ++rowNumber, plan, options.typed));
    } finally {
      await rows.return(undefined);
    }
  }
  return { plan, batches: batches() };
}

/** The first `count` data rows of a run's stored rows, as text, without mapping (the header row skipped). */
export async function readSampleRows(blobs: BlobStore, run: RunState, count: number): Promise<string[][]> {
  const { batches } = await readPlannedRows(blobs, run, {});
  const sample: string[][] = [];
  try {
    for await (const batch of batches) {
      for (const row of batch) {
        sample.push(row);
        if (sample.length >= count) return sample;
      }
    }
    return sample;
  } finally {
    await batches.return(undefined);
  }
}
