import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { readWholeBlob, type BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { duplicatesKeyOf, sourceReadingKey, type DuplicateRows, type RunState } from '@app/domain';
import { findDuplicateRows } from './duplicate-values';
import type { FirstPass } from './duplicates-first-pass';

/**
 * The duplicates pass's answer for a run, mapping and fixes, kept beside the run's rows, so the
 * output (often another process) reuses what the review already found instead of reading the
 * whole file again once or twice. One blob per run holds the latest answer, named by a
 * fingerprint of everything the answer depends on; an answer for anything else is ignored.
 *
 * Layout: one line of JSON (`{fingerprint, fields: [[name, bytes], ...]}`), then each field's
 * bit-per-row bytes one after the other.
 */
function duplicatesFingerprint(run: RunState, mapping: MappingRule): string {
  const sortedMapping = Object.keys(mapping)
    .sort()
    .map((k) => [k, mapping[k]]);
  return createHash('sha256')
    .update(JSON.stringify([run.rows_key, sourceReadingKey(run), sortedMapping, run.value_fixes ?? [], run.schema]))
    .digest('base64url');
}

async function readStoredDuplicates(blobs: BlobStore, run: RunState, fingerprint: string): Promise<DuplicateRows | null> {
  const all = await readWholeBlob(blobs, duplicatesKeyOf(run.rows_key));
  if (!all) return null;
  const newline = all.indexOf(0x0a);
  if (newline < 0) return null;
  let head: { fingerprint?: unknown; fields?: unknown };
  try {
    head = JSON.parse(all.subarray(0, newline).toString('utf8')) as typeof head;
  } catch {
    return null;
  }
  if (head.fingerprint !== fingerprint || !Array.isArray(head.fields)) return null;
  const rows: DuplicateRows = {};
  let at = newline + 1;
  for (const [name, bytes] of head.fields as [string, number][]) {
    if (at + bytes > all.length) return null;
    rows[name] = new Uint8Array(all.subarray(at, at + bytes));
    at += bytes;
  }
  return rows;
}

async function storeDuplicates(blobs: BlobStore, run: RunState, fingerprint: string, rows: DuplicateRows): Promise<void> {
  const fields = Object.entries(rows).map(([name, bits]) => [name, bits.length] as const);
  const head = Buffer.from(JSON.stringify({ fingerprint, fields }) + '\n', 'utf8');
  const body = [head, ...Object.values(rows).map((bits) => Buffer.from(bits.buffer, bits.byteOffset, bits.length))];
  await blobs.put(duplicatesKeyOf(run.rows_key), Readable.from(body), { contentType: 'application/octet-stream' });
}

/** The duplicates pass's answer stored for the same run, mapping and fixes, or null (none, another's, unreadable). */
export async function storedDuplicateRows(blobs: BlobStore, run: RunState, mapping: MappingRule): Promise<DuplicateRows | null> {
  return readStoredDuplicates(blobs, run, duplicatesFingerprint(run, mapping)).catch(() => null);
}

/**
 * The duplicates pass's answer: the stored one when it was found for the same run, mapping and
 * fixes, else found now (findDuplicateRows, from `firstPasses` when other threads read the first
 * pass) and stored. Null when `signal` aborts it. A stored answer that cannot be read or written
 * only costs the pass: it is never trusted blindly.
 */
export async function duplicateRowsOf(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  signal?: AbortSignal,
  onProgress?: (rows: number) => void,
  firstPasses?: FirstPass[],
): Promise<DuplicateRows | null> {
  const fingerprint = duplicatesFingerprint(run, mapping);
  const stored = await readStoredDuplicates(blobs, run, fingerprint).catch(() => null);
  if (stored) return stored;
  const found = await findDuplicateRows(blobs, run, mapping, signal, onProgress, {}, firstPasses);
  if (found && Object.keys(found).length > 0) await storeDuplicates(blobs, run, fingerprint, found);
  return found;
}
