import type { BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import { detached, uniquenessGroups, type RunState } from '@app/domain';
import { canonicalNumber, compileKey, sha256 } from './duplicate-keys';
import { freeNow } from './free-now';
import { readPlannedRows } from './mapped-rows';
import { rowsIn, within, type RowRange } from './row-range';

/**
 * The duplicates pass's first read (duplicate-values.ts): per row and set of fields that must
 * be unique, a number that stands for the row's key. It reads a range of rows, so two threads
 * can each read half of a big file; joinFirstPasses then makes their numbers agree.
 */

export interface DuplicatesOptions {
  /** Bytes of the digest kept per row in the first pass (at most 6); fewer make shared prefixes common (tests). */
  prefixBytes?: number;
  /** Distinct keys the first pass may keep exactly, all sets together (EXACT_KEYS); 0 digests every key (tests). */
  exactKeys?: number;
  /** Characters those keys may have together (EXACT_KEY_CHARACTERS); fewer make the budget run out sooner (tests). */
  exactKeyCharacters?: number;
}

/**
 * The budget of keys kept whole by one first pass: at most this many, and this many characters
 * together, each at most EXACT_KEY_LENGTH long (about 8 MB of the thread's heap at worst).
 */
const EXACT_KEYS = 65_536;
const EXACT_KEY_CHARACTERS = 2_000_000;
const EXACT_KEY_LENGTH = 256;

/** A digest prefix of a key, as a number (from 0). */
export function digestPrefixer(options: DuplicatesOptions): (key: string) => number {
  const bytes = Math.min(6, Math.max(1, options.prefixBytes ?? 6));
  return (key) => sha256(key).readUIntBE(0, bytes);
}

/** What a first pass found for one set of fields over its range. */
export interface FirstPassSet {
  /** Per row: the key as a number, for a one-field set whose key is a number as JavaScript writes it, else NaN; null when no row's is. */
  numbers: Float64Array | null;
  /**
   * Per row: the key's number among `keys` (-1 for the first, -2, ...), else the key's digest
   * prefix (from 0); NaN for an empty key or one in `numbers`. Null when every row's is NaN.
   */
  prefixes: Float64Array | null;
  /** The keys kept whole, in the order of their numbers. */
  keys: string[];
  /** Whether the budget turned a key away: it was digested here, though another range may have kept it whole. */
  turnedAway: boolean;
}

/** A first pass over a range of rows, one entry per set of uniquenessGroups(schema). */
export interface FirstPass {
  rows: number;
  sets: FirstPassSet[];
}

/**
 * A growable list of numbers (one per row, in row order), NaN for none. The array is made at the
 * first number, so a list of NaN only (a column of ids has no digest prefixes) takes no memory.
 */
class NumberList {
  private values: Float64Array | null = null;
  private length = 0;
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
  /**
   * The numbers pushed, or null when all were NaN. A range cut short while it was read (range-end.ts)
   * pushed fewer than its capacity: its numbers are copied out, since the result's whole buffer is
   * moved to the thread that goes on and the rows taken away would be held there twice.
   */
  done(): Float64Array | null {
    if (this.values === null) return null;
    return this.length < this.values.length / 2 ? this.values.slice(0, this.length) : this.values.subarray(0, this.length);
  }
}

/**
 * Reads a range of a run's rows under a mapping (and the run's fixes) and numbers each row's key
 * per set: a key that is a number is that number, exact; one of the first distinct other keys of
 * the range (up to a budget of keys and characters shared by the sets) is its own number among
 * them, also exact; any other is a prefix of its SHA-256 digest. Null when `signal` aborts it.
 */
export async function firstDuplicatesPass(
  blobs: BlobStore,
  run: RunState,
  mapping: MappingRule,
  range: RowRange,
  signal?: AbortSignal,
  onProgress: (rows: number) => void = () => undefined,
  options: DuplicatesOptions = {},
): Promise<FirstPass | null> {
  const sets = uniquenessGroups(run.schema);
  if (sets.length === 0) return { rows: 0, sets: [] };
  const prefixOf = digestPrefixer(options);
  // Only the columns of the fields that must be unique are read (a delimited file's other cells are given as empty text).
  const source = await readPlannedRows(blobs, run, mapping, null, range.fromRow, { fieldsRead: sets.flat() });
  const byName = new Map(source.plan.map((p) => [p.name, p]));
  const capacity = rowsIn(range, run.total_rows);
  const found = sets.map((fields) => ({
    oneField: fields.length === 1,
    key: compileKey(fields.map((f) => byName.get(f)!)),
    numbers: new NumberList(capacity),
    prefixes: new NumberList(capacity),
    kept: new Map<string, number>(),
    turnedAway: false,
  }));
  let keyBudget = Math.max(0, options.exactKeys ?? EXACT_KEYS);
  let characterBudget = Math.max(0, options.exactKeyCharacters ?? EXACT_KEY_CHARACTERS);
  const numberOf = (set: (typeof found)[number], key: string): number => {
    const known = set.kept.get(key);
    if (known !== undefined) return known;
    // A key too long is digested in every range alike: only the budget turns a key away.
    if (key.length > EXACT_KEY_LENGTH) return prefixOf(key);
    if (keyBudget === 0 || key.length > characterBudget) {
      set.turnedAway = true;
      return prefixOf(key);
    }
    keyBudget--;
    characterBudget -= key.length;
    const number = -(set.kept.size + 1);
    set.kept.set(detached(key), number);
    return number;
  };

  let n = range.fromRow - 1;
  for await (const batch of within(source.batches, range)) {
    if (signal?.aborted) return null;
    for (const row of batch) {
      n++;
      // A row the reviewer left out repeats nothing (as an empty key: the later passes pass over it too).
      const out = source.leftOut !== null && source.leftOut(n);
      for (let si = 0; si < found.length; si++) {
        const set = found[si];
        const key = out ? null : set.key(row, n);
        const number = key !== null && set.oneField ? canonicalNumber(key) : null;
        set.numbers.push(number ?? NaN);
        set.prefixes.push(key === null || number !== null ? NaN : numberOf(set, key));
      }
    }
    onProgress(n - range.fromRow + 1);
  }
  return {
    rows: n - range.fromRow + 1,
    sets: found.map((set) => ({
      numbers: set.numbers.done(),
      prefixes: set.prefixes.done(),
      keys: [...set.kept.keys()],
      turnedAway: set.turnedAway,
    })),
  };
}

/** Numbers per row of a file, in the chunks of the ranges that read them. */
export class RowNumbers {
  constructor(private chunks: { values: Float64Array | null; rows: number }[]) {}

  /** The numbers are needed no more: their memory is given back now (freeNow), and every row reads NaN. */
  free(): void {
    freeNow(this.chunks.map((c) => c.values));
    this.chunks = [];
  }

  /** The number of row `n` (from 1); NaN for none. */
  at(n: number): number {
    let i = n - 1;
    for (const chunk of this.chunks) {
      if (i < chunk.rows) return chunk.values === null ? NaN : chunk.values[i];
      i -= chunk.rows;
    }
    return NaN;
  }

  /**
   * The numbers that occur more than once, sorted (NaN, the empty keys, never equal). `scratch`
   * gives the array they are sorted in (8 bytes a row): one for every list, not one each.
   */
  repeated(scratch: (length: number) => Float64Array = (length) => new Float64Array(length)): Float64Array {
    const filled = this.chunks.filter((c) => c.values !== null).map((c) => c.values!);
    if (filled.length === 0) return new Float64Array(0);
    const sorted = scratch(filled.reduce((n, v) => n + v.length, 0));
    let at = 0;
    for (const values of filled) {
      sorted.set(values, at);
      at += values.length;
    }
    sorted.sort();
    const out: number[] = [];
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i] === sorted[i - 1] && (out.length === 0 || out[out.length - 1] !== sorted[i])) out.push(sorted[i]);
    }
    return Float64Array.from(out);
  }
}

/** A first pass over a whole file: per set, its numbers and digest prefixes (as FirstPassSet's), every row's from 1. */
export interface JoinedFirstPass {
  rows: number;
  sets: { numbers: RowNumbers; prefixes: RowNumbers }[];
}

/**
 * The first passes of consecutive ranges (in order, together the whole file) as one pass over
 * the file, their numbers made to agree. Each range numbered the keys it kept whole by itself,
 * so they are numbered again, together; a key is kept whole only where no range can have
 * digested it instead (every range kept it, or turned no key away), else it becomes its digest
 * prefix in the ranges that kept it, as in those that did not, and the later passes compare it
 * by digest. The parts are used up: their prefixes are rewritten in place and their keys dropped.
 */
export function joinFirstPasses(parts: FirstPass[], options: DuplicatesOptions = {}): JoinedFirstPass {
  const prefixOf = digestPrefixer(options);
  const setCount = parts[0]?.sets.length ?? 0;
  const sets: JoinedFirstPass['sets'] = [];
  for (let si = 0; si < setCount; si++) {
    if (parts.length > 1)
      renumberKeys(
        parts.map((p) => p.sets[si]),
        prefixOf,
      );
    sets.push({
      numbers: new RowNumbers(parts.map((p) => ({ values: p.sets[si].numbers, rows: p.rows }))),
      prefixes: new RowNumbers(parts.map((p) => ({ values: p.sets[si].prefixes, rows: p.rows }))),
    });
    // The kept keys (up to EXACT_KEY_CHARACTERS a range) are needed no more: not through the later passes.
    for (const p of parts) p.sets[si].keys = [];
  }
  return { rows: parts.reduce((n, p) => n + p.rows, 0), sets };
}

/** One set's kept keys numbered across its ranges (joinFirstPasses). */
function renumberKeys(ranges: FirstPassSet[], prefixOf: (key: string) => number): void {
  // Only a range that turned keys away can have digested a key another range kept.
  const keptBy = ranges.map((r) => (r.turnedAway ? new Set(r.keys) : null));
  const joined = new Map<string, number>();
  let exactCount = 0;
  ranges.forEach((range, ri) => {
    if (range.keys.length === 0 || range.prefixes === null) return;
    const renumbered = range.keys.map((key) => {
      let number = joined.get(key);
      if (number === undefined) {
        const exactEverywhere = keptBy.every((kept, qi) => qi === ri || kept === null || kept.has(key));
        number = exactEverywhere ? -++exactCount : prefixOf(key);
        joined.set(key, number);
      }
      return number;
    });
    const values = range.prefixes;
    for (let i = 0; i < values.length; i++) if (values[i] < 0) values[i] = renumbered[-values[i] - 1];
  });
}
