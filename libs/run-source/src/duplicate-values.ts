import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { uniquenessGroups, type DuplicateRows, type RunState } from '@app/domain';
import { compileKey, sha256 } from './duplicate-keys';
import { firstDuplicatesPass, joinFirstPasses, type DuplicatesOptions, type FirstPass, type RowNumbers } from './duplicates-first-pass';
import { freeNow } from './free-now';
import { readPlannedRows } from './mapped-rows';
import { WHOLE_FILE } from './row-range';

/**
 * The duplicates pass: which data rows hold a value that appears more than once in the file
 * for a field that must be unique (`unique`), or a combination that does for a set of
 * fields that must be unique together (`unique_with`). Every occurrence of a repeated value
 * is marked, as a spreadsheet highlights duplicates, so a row's verdict does not depend on
 * the rows read before it: the count, the pages of rows with problems (which may start in
 * the middle of the file) and the output check each row against this answer.
 *
 * Memory stays small whatever the file. The first pass keeps a number per row and set in a
 * typed array (outside the JS heap; two for a set of one field that holds numbers and text):
 * for a key that is a number (an id), that number itself, which is exact; for the first
 * distinct other keys of the file (of each half, when two threads read it; up to a budget of
 * keys and characters shared by the sets), the key's own number in a Map of those keys, also
 * exact; for the others, a 48-bit prefix of the SHA-256 digest of the row's key.
 * Sorted, the numbers give those that occur more than once: a repeated key number is a
 * repeated value, nothing more to check. A second pass, only when digest prefixes repeat,
 * compares the whole digest of each occurrence with the first one of its prefix (32 bytes per
 * repeated prefix): rows of a prefix whose digests all agree hold the same value. A prefix
 * shared by different values (about one chance in ten thousand for a million different
 * values) is settled by a third pass over its rows alone, grouped by whole digest. So a file
 * whose repeated values are among its first distinct ones (a column of few values, or a set
 * of them) is read once, and one with many different values costs a SHA-256 per row beyond
 * the budget. The answer is one bit per row and field.
 *
 * The first pass, the one every file pays, can be read by two threads at once, each over half
 * the file (firstDuplicatesPass); their numbers are then made to agree (joinFirstPasses) and the
 * rest goes on here, on one thread, as if one pass had read the whole file.
 */

/** Index of `n` in a sorted array, or -1. */
function indexOf(sorted: Float64Array, n: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v === n) return mid;
    if (v < n) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

const mark = (bits: Uint8Array, row: number): void => {
  bits[row >> 3] |= 1 << (row & 7);
};

interface Group {
  fields: string[];
  key: (row: string[], rowNumber: number) => string | null;
  /** Per row: the first pass's number of its key among the keys kept whole (negative), else its digest prefix. */
  prefixes: RowNumbers;
  /** A one-field set: per row, the key as a number when it is one written as JavaScript writes it (else NaN). */
  numbers: RowNumbers;
  /** The numbers that occur more than once, sorted. */
  repeatedNumbers: Float64Array;
  candidates: Float64Array;
  /** Per candidate: the whole digest of its first occurrence, whether one was seen, whether another digest shares the prefix. */
  firstDigest: Buffer;
  seen: Uint8Array;
  mixed: Uint8Array;
  rows: Uint8Array;
}

/**
 * Finds, over the whole stored source under a mapping (and the run's fixes), the rows whose
 * value repeats where the schema asks for unique values. `firstPasses`: the first pass already
 * read, by ranges that together make the file (firstDuplicatesPass, on several threads at once);
 * without them it is read here. Returns an empty answer when the schema asks for none, and null
 * when `signal` aborts it.
 */
export async function findDuplicateRows(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  signal?: AbortSignal,
  onProgress: (rows: number) => void = () => undefined,
  options: DuplicatesOptions = {},
  firstPasses?: FirstPass[],
): Promise<DuplicateRows | null> {
  const sets = uniquenessGroups(run.schema);
  if (sets.length === 0) return {};

  // 1. Per row and set, the key's number among the keys kept whole (negative: -1, -2, ...), else a digest prefix (from 0).
  const parts = firstPasses ?? [await firstDuplicatesPass(blobs, run, mapping, WHOLE_FILE, signal, onProgress, options)];
  if (parts.some((p) => p === null)) return null;
  const first = joinFirstPasses(parts as FirstPass[], options);
  const rowCount = first.rows;

  // The later passes read the whole file again, for the rows whose digest prefix repeats.
  let keys: ((row: string[], rowNumber: number) => string | null)[] = [];
  const pass = async (visit: (row: string[], rowNumber: number) => void): Promise<boolean> => {
    const source = await readPlannedRows(blobs, run, mapping, null, 1, { fieldsRead: sets.flat() });
    if (keys.length === 0) {
      const byName = new Map(source.plan.map((p) => [p.name, p]));
      keys = sets.map((fields) => compileKey(fields.map((f) => byName.get(f)!)));
    }
    let n = 0;
    try {
      for await (const batch of source.batches) {
        if (signal?.aborted) return false;
        for (const row of batch) visit(row, ++n);
        onProgress(n);
      }
    } finally {
      await source.batches.return(undefined);
    }
    return true;
  };
  // The lists are sorted one after the other in one array: the process's memory peaks here, as the output begins.
  let sortArray = new Float64Array(0);
  const scratch = (length: number): Float64Array => {
    if (sortArray.length < length) sortArray = new Float64Array(length);
    return sortArray.subarray(0, length);
  };
  const groups: Group[] = sets.map((fields, gi) => {
    const { numbers, prefixes } = first.sets[gi];
    const candidates = prefixes.repeated(scratch);
    return {
      fields,
      key: (row, n) => keys[gi](row, n),
      prefixes,
      numbers,
      repeatedNumbers: numbers.repeated(scratch),
      candidates,
      firstDigest: Buffer.alloc(candidates.length * 32),
      seen: new Uint8Array(candidates.length),
      mixed: new Uint8Array(candidates.length),
      rows: new Uint8Array((rowCount >> 3) + 1),
    };
  });
  freeNow([sortArray]); // 8 bytes a row: not kept through the later passes
  sortArray = new Float64Array(0);

  // 2. The whole digests of the rows whose digest prefix repeats (a repeated key number needs none: it is exact).
  const candidateOf = (g: Group, n: number): number => {
    const prefix = g.prefixes.at(n);
    return Number.isNaN(prefix) ? -1 : indexOf(g.candidates, prefix);
  };
  const isDigestPrefix = (g: Group, n: number): boolean => g.prefixes.at(n) >= 0;
  // Candidates are sorted: a repeated digest prefix, if any, is the last.
  if (groups.some((g) => g.candidates.length > 0 && g.candidates[g.candidates.length - 1] >= 0)) {
    const second = await pass((row, n) => {
      for (const g of groups) {
        if (!isDigestPrefix(g, n)) continue;
        const i = candidateOf(g, n);
        if (i < 0) continue;
        const digest = sha256(g.key(row, n)!);
        if (g.seen[i] === 0) {
          digest.copy(g.firstDigest, i * 32);
          g.seen[i] = 1;
        } else if (g.mixed[i] === 0 && digest.compare(g.firstDigest, i * 32, i * 32 + 32) !== 0) g.mixed[i] = 1;
      }
    });
    if (!second) return null;
  }
  for (const g of groups) {
    for (let n = 1; n <= rowCount; n++) {
      const i = candidateOf(g, n);
      if (i >= 0 && g.mixed[i] === 0) mark(g.rows, n);
      const number = g.numbers.at(n);
      if (!Number.isNaN(number) && indexOf(g.repeatedNumbers, number) >= 0) mark(g.rows, n);
    }
  }

  // 3. Prefixes shared by different values: their rows grouped by whole digest.
  if (groups.some((g) => g.mixed.includes(1))) {
    const rowsByDigest = groups.map(() => new Map<string, number[]>());
    const third = await pass((row, n) => {
      groups.forEach((g, gi) => {
        const i = candidateOf(g, n);
        if (i < 0 || g.mixed[i] === 0) return;
        const digest = sha256(g.key(row, n)!).toString('base64');
        const rows = rowsByDigest[gi].get(digest);
        if (rows) rows.push(n);
        else rowsByDigest[gi].set(digest, [n]);
      });
    });
    if (!third) return null;
    groups.forEach((g, gi) => {
      for (const rows of rowsByDigest[gi].values()) if (rows.length > 1) for (const n of rows) mark(g.rows, n);
    });
  }

  // A field's rows: those of every set it belongs to.
  const byField: DuplicateRows = {};
  for (const g of groups) {
    for (const field of g.fields) {
      // Own keys only: a field may be named "constructor" or "toString", which every object inherits.
      const bits = Object.hasOwn(byField, field) ? byField[field] : undefined;
      if (!bits) byField[field] = g.rows.slice();
      else for (let i = 0; i < bits.length; i++) bits[i] |= g.rows[i];
    }
  }
  // What the passes used (8 bytes a row and set) is freed now: this thread goes on to write its part of the output.
  for (const g of groups) {
    g.numbers.free();
    g.prefixes.free();
    freeNow([g.repeatedNumbers, g.candidates, g.seen, g.mixed, g.rows]);
  }
  return byField;
}
