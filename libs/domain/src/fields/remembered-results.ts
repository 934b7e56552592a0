/** Values up to this many characters have their result remembered (longer ones seldom repeat). */
const REMEMBERED_VALUE_LENGTH = 64;
/** Results remembered at most; the memory is emptied when full (a few hundred KB per function). */
const REMEMBERED_RESULTS = 4096;
/** Look-ups per round of the memory: a round in which fewer than a quarter were known turns it off for the run. */
const REMEMBER_ROUND = 8192;

/**
 * A copy of a text that holds no reference to the larger text it may have been cut from: V8 keeps a
 * cell read from a file as a slice of its chunk, so a kept cell would keep the chunk (64 KiB) alive.
 * UTF-16 both ways copies every code unit, lone surrogates too.
 */
export const detached = (text: string): string => Buffer.from(text, 'utf16le').toString('utf16le');

/**
 * A pure function of a short text, with its results remembered. Columns often repeat a few
 * values (categories, cities, dates, codes), and a cell's transformations and checks are the
 * same work each time it comes back; when a round of look-ups finds mostly new values
 * (e-mail addresses, ids) the memory turns itself off and every value is computed, so a column
 * of unique values pays one round of look-ups and no more. `keep` turns a result into what may
 * be kept (detached from the text it was cut from, frozen when it is an object shared by every
 * caller); the key is always detached.
 */
export function rememberResults<R>(compute: (text: string) => R, keep: (result: R) => R): (text: string) => R {
  let results: Map<string, R> | null = new Map();
  let lookups = 0;
  let known = 0;
  return (text) => {
    if (results === null || text.length > REMEMBERED_VALUE_LENGTH) return compute(text);
    if (++lookups === REMEMBER_ROUND) {
      if (known < REMEMBER_ROUND / 4) results = null;
      lookups = 0;
      known = 0;
    }
    const remembered = results?.get(text);
    if (remembered !== undefined) {
      known++;
      return remembered;
    }
    const result = compute(text);
    if (results === null) return result;
    if (results.size >= REMEMBERED_RESULTS) results.clear();
    const kept = keep(result);
    results.set(detached(text), kept);
    return kept;
  };
}
