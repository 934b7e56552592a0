/** Values up to this many characters have their result remembered (longer ones seldom repeat). */
const REMEMBERED_VALUE_LENGTH = 64;
/** Results one memory keeps at most unless told otherwise; it is emptied when full. */
const REMEMBERED_RESULTS = 4096;
/**
 * Results the memories of one kind (pattern verdicts, output members, cell problems) of one read
 * keep together, one memory per field: a schema may have hundreds of fields, and
 * a read runs in a worker thread whose heap is capped (docs/files.md, "Memory"; each result is at most a
 * few hundred bytes: 8,192 of them a few MB).
 */
const REMEMBERED_PER_READ = 8192;
/** Fewer results than this are not worth looking up: the memory is off. */
const FEWEST_REMEMBERED = 16;

/** Look-ups per round of the memory at most: a round in which fewer than a quarter were known turns it off for the run. */
const REMEMBER_ROUND = 8192;
/**
 * A round is shorter for a small memory: four look-ups per result it can keep. A column of no more
 * values than the memory keeps misses at most once per value in a round, so at least three quarters of
 * the round are known and it stays on; a column of more values empties the memory before its values
 * come back, so waiting longer only pays for remembering what will not be recalled. With 120 fields a
 * memory keeps 68 results, and a round of 8,192 made every read remember each value of its first 8,192
 * rows (bench/README.md, "Rounds as long as the memory", twenty-first session).
 */
const ROUND_PER_RESULT = 4;

/** How many results each of `memories` memories of one read may keep (0: none, for a read with very many). */
export function rememberedShare(memories: number): number {
  const share = Math.floor(REMEMBERED_PER_READ / Math.max(1, memories));
  return share >= FEWEST_REMEMBERED ? share : 0;
}

/**
 * A copy of a text that holds no reference to the larger text it may have been cut from: V8 keeps a
 * cell read from a file as a slice of its chunk, so a kept cell would keep the chunk (64 KiB) alive.
 * UTF-16 both ways copies every code unit, lone surrogates too.
 */
export const detached = (text: string): string => Buffer.from(text, 'utf16le').toString('utf16le');

/**
 * The remembered results of a pure function of a short text. Columns often repeat a few values
 * (categories, cities, dates, codes), and a cell's transformations and checks are the same work
 * each time it comes back; when a round of look-ups finds mostly new values (e-mail addresses,
 * ids) the memory turns itself off (`on` false), so a column of unique values pays one round of
 * look-ups and no more. `keep` turns a result into what may be kept (detached from the text it
 * was cut from, frozen when it is an object shared by every caller); the key is always detached.
 */
export class RememberedResults<R> {
  private results: Map<string, R> | null;
  private lookups = 0;
  private known = 0;
  private readonly round: number;

  /** `capacity`: results kept at most (the memory is emptied when full); 0 turns it off from the start. */
  constructor(
    private readonly keep: (result: R) => R,
    private readonly capacity = REMEMBERED_RESULTS,
  ) {
    this.results = capacity > 0 ? new Map() : null;
    this.round = Math.min(REMEMBER_ROUND, ROUND_PER_RESULT * capacity);
  }

  /** Whether results are still looked up and remembered. */
  get on(): boolean {
    return this.results !== null;
  }

  /** The result remembered for a text, or undefined (not seen, too long, or the memory is off). */
  recall(text: string): R | undefined {
    if (this.results === null || text.length > REMEMBERED_VALUE_LENGTH) return undefined;
    if (++this.lookups === this.round) {
      if (this.known < this.round / 4) this.results = null;
      this.lookups = 0;
      this.known = 0;
    }
    const remembered = this.results?.get(text);
    if (remembered !== undefined) this.known++;
    return remembered;
  }

  /** Remembers a text's result (when the memory is on and the text short) and gives back what is kept. */
  remember(text: string, result: R): R {
    if (this.results === null || text.length > REMEMBERED_VALUE_LENGTH) return result;
    if (this.results.size >= this.capacity) this.results.clear();
    const kept = this.keep(result);
    this.results.set(detached(text), kept);
    return kept;
  }
}

/** A pure function of a short text with its results remembered (RememberedResults). */
export function rememberResults<R>(compute: (text: string) => R, keep: (result: R) => R, capacity?: number): (text: string) => R {
  const memory = new RememberedResults(keep, capacity);
  return (text) => memory.recall(text) ?? memory.remember(text, compute(text));
}
