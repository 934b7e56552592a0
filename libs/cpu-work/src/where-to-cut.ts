/**
 * What a new part costs before it writes its first rows: its read begins at a row index entry and
 * skips to its first row, and its plan is built again (first batch after 91 ms in one measure).
 */
const START_SECONDS = 0.1;
/**
 * How much slower a new part goes than the part it took its rows from: its code and its memories
 * of repeated values warm up again. Measured 1.6-2.5 times on the csv case's output and 1.7 times
 * on the wide case's (bench/README.md, "A free thread takes the last rows of the other's half").
 */
const NEW_PART_SLOWER = 2;
/** A free thread takes rows from another only when that ends the work at least this much sooner. */
const LEAST_SECONDS_SAVED = 0.15;
/** Nor fewer rows than this, whatever the pace. */
const LEAST_ROWS_TAKEN = 5_000;

/** A part of an output being written: its first row, the last it claimed, its last, and how long its thread has been at it. */
export interface PartPace {
  fromRow: number;
  claimed: number;
  lastRow: number;
  seconds: number;
}

/**
 * Where to cut a part being written so that a free thread takes the last of the rows it has not
 * claimed yet: the row to end the part after, or null when that is not worth a new part. The free
 * thread takes as many rows as leave both threads ending together, at the part's pace so far for
 * the part and, for the new part, its start (START_SECONDS) and a pace NEW_PART_SLOWER times
 * slower; only when that ends the work at least LEAST_SECONDS_SAVED sooner, with at least
 * LEAST_ROWS_TAKEN rows taken, and once the part has a pace.
 */
export function whereToCut({ fromRow, claimed, lastRow, seconds }: PartPace): number | null {
  const done = claimed - fromRow + 1;
  if (done <= 0 || seconds <= 0) return null;
  const secondsPerRow = seconds / done;
  // The part's (left - taken) rows take as long as the new part's start and its `taken` rows, slower.
  const taken = Math.floor((lastRow - claimed - START_SECONDS / secondsPerRow) / (1 + NEW_PART_SLOWER));
  // What the cut saves: the taken rows, at the part's pace.
  if (taken < LEAST_ROWS_TAKEN || taken * secondsPerRow < LEAST_SECONDS_SAVED) return null;
  return lastRow - taken;
}
