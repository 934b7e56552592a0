import { readWholeBlob, type BlobStore } from '@app/blob-storage';
import { rowIndexKeyOf, type RunState } from '@app/domain';
import { entryAtOrBefore, parseRowIndex, type RowIndex } from '@app/tabular';

/** Indexes read in this thread, by key: stored sources never change, and pages of one review come in runs. */
const cache = new Map<string, RowIndex | null>();
const CACHED = 8;

async function storedRowIndex(blobs: BlobStore, rowsKey: string): Promise<RowIndex | null> {
  const key = rowIndexKeyOf(rowsKey);
  if (cache.has(key)) return cache.get(key)!;
  const bytes = await readWholeBlob(blobs, key);
  const index = bytes && parseRowIndex(bytes.toString('utf8'));
  cache.set(key, index);
  if (cache.size > CACHED) cache.delete(cache.keys().next().value as string);
  return index;
}

/**
 * Where a read of a run's rows can start to reach row `target` (rows as the reader yields
 * them, from 0, the header row counted): the last index entry at or before it, or null (read
 * from the top) for workbooks, files without an index (ingested before indexes, extracted
 * records, encodings without exact offsets) and rows near the top.
 */
export async function resumePoint(
  blobs: BlobStore,
  run: RunState,
  rowsKey: string,
  target: number,
): Promise<{ rows: number; byte: number; linebreak: string } | null> {
  if (run.source_format === 'xlsx' || !run.delimiter || !run.encoding) return null;
  const index = await storedRowIndex(blobs, rowsKey);
  const entry = index && entryAtOrBefore(index, target);
  return entry && index ? { ...entry, linebreak: index.linebreak } : null;
}
