import { createHash, hash } from 'node:crypto';
import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { cellOf, detached, uniquenessGroups, type DuplicateRows, type FieldPlan, type RunState } from '@app/domain';
import { readPlannedRows } from './mapped-rows';

/**
 * The duplicates pass: which data rows hold a value that appears more than once in the file
 * for a field that must be unique (`unique`), or a combination that does for a set of
 * fields that must be unique together (`unique_with`). Every occurrence of a repeated value
 * is marked, as a spreadsheet highlights duplicates, so a row's verdict does not depend on
 * the rows read before it: the count, the pages of rows with problems (which may start in
 * the middle of the file) and the output check each row against this answer.
 *
 * Memory stays small whatever the file. The first pass keeps a number per row and set in a
 * typed array (outside the JS heap; two for a set of one field that holds numbers and text): for a key
 * that is a number (an id), that number itself, which is exact; for the first distinct other
 * keys of the file (up to a budget of keys and characters shared by the sets), the key's own
 * number in a Map of those keys, also exact; for the others, a 48-bit prefix of the SHA-256
 * digest of the row's key.
 * Sorted, the numbers give those that occur more than once: a repeated key number is a
 * repeated value, nothing more to check. A second pass, only when digest prefixes repeat,
 * compares the whole digest of each occurrence with the first one of its prefix (32 bytes per
 * repeated prefix): rows of a prefix whose digests all agree hold the same value. A prefix
 * shared by different values (about one chance in ten thousand for a million different
 * values) is settled by a third pass over its rows alone, grouped by whole digest. So a file
 * whose repeated values are among its first distinct ones (a column of few values, or a set
 * of them) is read once, and one with many different values costs a SHA-256 per row beyond
 * the budget. The answer is one bit per row and field.
 */

/** SHA-256 of a key: crypto.hash (one call, Node 20.12+) where there is one. */
const sha256: (key: string) => Buffer =
  typeof hash === 'function' ? (key) => hash('sha256', key, 'buffer') : (key) => createHash('sha256').update(key).digest();

export interface DuplicatesOptions {
  /** Bytes of the digest kept per row in the first pass (at most 6); fewer make shared prefixes common (tests). */
  prefixBytes?: number;
  /** Distinct keys the first pass may keep exactly, all sets together (EXACT_KEYS); 0 digests every key (tests). */
  exactKeys?: number;
}

/**
 * The budget of keys kept whole in the first pass: at most this many, and this many characters
 * together, each at most EXACT_KEY_LENGTH long (about 8 MB of the worker's heap at worst).
 */
const EXACT_KEYS = 65_536;
const EXACT_KEY_CHARACTERS = 2_000_000;
const EXACT_KEY_LENGTH = 256;

/** A cell's value as uniqueness compares it: as typed ("1.0" and "1" are the same number), text trimmed; null when empty. */
function keyPart(p: FieldPlan, row: string[], rowNumber: number): string | null {
  // Only the typed value counts: the pattern, range and length checks would not change it.
  const { value } = p.typeCheck(cellOf(p, row, rowNumber));
  if (value === null) return null;
  const text = typeof value === 'string' ? value.trim() : String(value);
  return text === '' ? null : text;
}

/** A row's key for a set of fields: null when every field of the set is empty (such rows are never duplicates). */
function compileKey(fields: FieldPlan[]): (row: string[], rowNumber: number) => string | null {
  if (fields.length === 1) return (row, n) => keyPart(fields[0], row, n);
  return (row, n) => {
    const parts: (string | null)[] = new Array<string | null>(fields.length);
    let empty = true;
    for (let i = 0; i < fields.length; i++) {
      parts[i] = keyPart(fields[i], row, n);
      if (parts[i] !== null) empty = false;
    }
    return empty ? null : JSON.stringify(parts);
  };
}

/**
 * A key that is a finite number as JavaScript writes it ("12", "1.5", "-3e+21", not "012" or
 * "1.50"): that number, else null. Keys are equal exactly when these numbers are, so a set of one
 * field keeps its numbers themselves (an id column, exact and without a digest). A key's text
 * alone decides, so a number typed from "1.0" and a text "1" of another row still meet.
 */
function canonicalNumber(key: string): number | null {
  const n = Number(key);
  return Number.isFinite(n) && String(n) === key ? n : null;
}

/**
 * A growable list of numbers in a typed array (one per row, in row order), NaN for none. The
 * array is made at the first number: a list of NaN only (a column of ids has no digest
 * prefixes) takes no memory.
 */
class NumberList {
  values: Float64Array | null = null;
  length = 0;
  constructor(private readonly capacity: number) {}
  push(n: number): void {
    if (this.values === null) {
      if (Number.isNaN(n)) {
        this.length++;
        return;
      }
      this.values = new Float64Array(Math.max(1024, this.capacity, this.length * 2)).fill(NaN, 0, this.length);
    }
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = n;
  }
  /** The number of row `n` (from 1). */
  at(n: number): number {
    return this.values === null ? NaN : this.values[n - 1];
  }
}

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

/** The values of a list that occur more than once, sorted (NaN, the empty keys, never equal). */
function repeated(list: NumberList): Float64Array {
  if (list.values === null) return new Float64Array(0);
  const sorted = list.values.slice(0, list.length).sort();
  const out: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1] && (out.length === 0 || out[out.length - 1] !== sorted[i])) out.push(sorted[i]);
  }
  return Float64Array.from(out);
}

const mark = (bits: Uint8Array, row: number): void => {
  bits[row >> 3] |= 1 << (row & 7);
};

interface Group {
  fields: string[];
  key: (row: string[], rowNumber: number) => string | null;
  prefixes: NumberList;
  /** A one-field set: per row, the key as a number when it is one written as JavaScript writes it (else NaN). */
  numbers: NumberList;
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
 * value repeats where the schema asks for unique values. Returns an empty answer when the
 * schema asks for none, and null when `signal` aborts it.
 */
export async function findDuplicateRows(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  signal?: AbortSignal,
  onProgress: (rows: number) => void = () => undefined,
  options: DuplicatesOptions = {},
): Promise<DuplicateRows | null> {
  const sets = uniquenessGroups(run.schema);
  if (sets.length === 0) return {};
  const prefixBytes = Math.min(6, Math.max(1, options.prefixBytes ?? 6));
  const prefixOf = (digest: Buffer): number => digest.readUIntBE(0, prefixBytes);

  let groups: Group[] = [];
  let rowCount = 0;
  const pass = async (visit: (row: string[], rowNumber: number) => void): Promise<boolean> => {
    const source = await readPlannedRows(blobs, run, mapping);
    if (groups.length === 0) {
      const byName = new Map(source.plan.map((p) => [p.name, p]));
      groups = sets.map((fields) => ({
        fields,
        key: compileKey(fields.map((f) => byName.get(f)!)),
        prefixes: new NumberList(run.total_rows ?? 0),
        numbers: new NumberList(run.total_rows ?? 0),
        repeatedNumbers: new Float64Array(0),
        candidates: new Float64Array(0),
        firstDigest: Buffer.alloc(0),
        seen: new Uint8Array(0),
        mixed: new Uint8Array(0),
        rows: new Uint8Array(0),
      }));
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
    rowCount = n;
    return true;
  };

  // 1. Per row and set, the key's number among the keys kept whole (negative: -1, -2, ...), else a digest prefix (from 0).
  // The budget is shared by the sets, each with its own Map.
  const kept = sets.map(() => new Map<string, number>());
  let keyBudget = Math.max(0, options.exactKeys ?? EXACT_KEYS);
  let characterBudget = EXACT_KEY_CHARACTERS;
  const numberOf = (keys: Map<string, number>, key: string): number => {
    const known = keys.get(key);
    if (known !== undefined) return known;
    if (keyBudget === 0 || key.length > EXACT_KEY_LENGTH || key.length > characterBudget) return prefixOf(sha256(key));
    keyBudget--;
    characterBudget -= key.length;
    const number = -(keys.size + 1);
    keys.set(detached(key), number);
    return number;
  };
  const first = await pass((row, n) => {
    for (let gi = 0; gi < groups.length; gi++) {
      const g = groups[gi];
      const key = g.key(row, n);
      const number = key !== null && g.fields.length === 1 ? canonicalNumber(key) : null;
      g.numbers.push(number ?? NaN);
      g.prefixes.push(key === null || number !== null ? NaN : numberOf(kept[gi], key));
    }
  });
  for (const keys of kept) keys.clear();
  if (!first) return null;
  for (const g of groups) {
    g.repeatedNumbers = repeated(g.numbers);
    g.candidates = repeated(g.prefixes);
    g.firstDigest = Buffer.alloc(g.candidates.length * 32);
    g.seen = new Uint8Array(g.candidates.length);
    g.mixed = new Uint8Array(g.candidates.length);
    g.rows = new Uint8Array((rowCount >> 3) + 1);
  }

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
      const bits = byField[field];
      if (!bits) byField[field] = g.rows.slice();
      else for (let i = 0; i < bits.length; i++) bits[i] |= g.rows[i];
    }
  }
  return byField;
}
