/**
 * The end of a range of rows that one thread reads while another may move that end earlier, to
 * hand the rest of the range to a thread that has run out of work. The two agree through one
 * 64-bit word in shared memory, changed only by compare-and-swap, that holds two rows:
 *
 * - the low 32 bits, the last row the reader has claimed: it reads every row up to it, whatever happens;
 * - the high 32 bits, the last row of the range (NO_END: the file's last).
 *
 * The reader claims each batch of rows before it reads it, and a cut never goes below the last
 * claimed row, so every row is read by exactly one thread, however often the range is cut.
 */
export type RangeEnd = BigUint64Array;

/** The last row of a range that runs to the end of the file. */
const NO_END = 0xffff_ffff;
/** Files with more rows than this are not shared out (their rows do not fit the word); far beyond any real file. */
export const MOST_ROWS_SHARED = NO_END - 1;
const LOW = 0xffff_ffffn;

const pack = (lastRow: number, claimed: number): bigint => (BigInt(lastRow) << 32n) | BigInt(claimed);
const unpack = (word: bigint): { lastRow: number; claimed: number } => ({ lastRow: Number(word >> 32n), claimed: Number(word & LOW) });

/** A range end for rows `fromRow` to `toRow` (null: to the file's end), nothing claimed yet: shared with a worker thread by postMessage. */
export function newRangeEnd(fromRow: number, toRow: number | null): RangeEnd {
  const end = new BigUint64Array(new SharedArrayBuffer(BigUint64Array.BYTES_PER_ELEMENT));
  Atomics.store(end, 0, pack(toRow ?? NO_END, fromRow - 1));
  return end;
}

/** The reader's side: claims the rows up to `row` and answers the last row it may read (`row`, or the range's end when that comes first). */
export function claimThrough(end: RangeEnd, row: number): number {
  for (;;) {
    const word = Atomics.load(end, 0);
    const { lastRow, claimed } = unpack(word);
    const through = Math.min(row, lastRow);
    if (through <= claimed) return through;
    if (Atomics.compareExchange(end, 0, word, pack(lastRow, through)) === word) return through;
  }
}

/** Where a range is now: the last row claimed and its last row (null: the file's last). */
export function rangeNow(end: RangeEnd): { claimed: number; lastRow: number | null } {
  const { lastRow, claimed } = unpack(Atomics.load(end, 0));
  return { claimed, lastRow: lastRow === NO_END ? null : lastRow };
}

/**
 * The other side: ends the range after the row `choose` picks, given where the range is now (at
 * least the last claimed row, and before its last row), or leaves it as it is when `choose`
 * answers null. Answers the row the range now ends after, or null when it was left as it was.
 */
export function cutAfter(end: RangeEnd, choose: (now: { claimed: number; lastRow: number | null }) => number | null): number | null {
  for (;;) {
    const word = Atomics.load(end, 0);
    const { lastRow, claimed } = unpack(word);
    const row = choose({ claimed, lastRow: lastRow === NO_END ? null : lastRow });
    if (row === null) return null;
    if (row < claimed || row >= lastRow)
      throw new RangeError(`A range of rows ${claimed} claimed, to ${lastRow}, cannot end after row ${row}`);
    if (Atomics.compareExchange(end, 0, word, pack(row, claimed)) === word) return row;
  }
}
