import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { cellOf, type RunState } from '@app/domain';
import { readPlannedRows } from './mapped-rows';

/** How many different values are tracked (memory stays bounded on any file), and how many are returned. */
const MAX_TRACKED = 10_000;
const MAX_RETURNED = 200;

export interface DistinctValues {
  /** The most frequent values first: each with the rows that hold it. */
  values: { value: string; rows: number }[];
  /** Different non-empty values seen (at most MAX_TRACKED are told apart). */
  distinct: number;
  /** More different values exist than are returned. */
  more: boolean;
}

/**
 * The different values a field has over the whole file under a mapping, after its
 * transformations and the reviewer's fixes but before its picklist mapping (the values a
 * picklist mapping maps from), trimmed, empty ones left out. Returns null when `signal` aborts.
 */
export async function distinctFieldValues(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  field: string,
  signal?: AbortSignal,
): Promise<DistinctValues | null> {
  const withoutPicklists = {
    ...run,
    value_fixes: (run.value_fixes ?? []).filter((f) => !(f.field === field && f.fix.kind === 'picklist')),
  };
  const source = await readPlannedRows(blobs, withoutPicklists, mapping);
  const plan = source.plan.find((p) => p.name === field);
  const counts = new Map<string, number>();
  let rowNumber = 0;
  try {
    if (!plan) return { values: [], distinct: 0, more: false };
    for await (const batch of source.batches) {
      if (signal?.aborted) return null;
      for (const row of batch) {
        rowNumber++;
        // A row the reviewer left out is delivered nowhere: its value needs no picklist mapping.
        if (source.leftOut !== null && source.leftOut(rowNumber)) continue;
        const value = cellOf(plan, row, rowNumber).trim();
        if (value === '') continue;
        const n = counts.get(value);
        if (n !== undefined) counts.set(value, n + 1);
        else if (counts.size < MAX_TRACKED) counts.set(value, 1);
      }
    }
  } finally {
    await source.batches.return(undefined);
  }
  const values = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_RETURNED)
    .map(([value, rows]) => ({ value, rows }));
  return { values, distinct: counts.size, more: counts.size > values.length };
}
