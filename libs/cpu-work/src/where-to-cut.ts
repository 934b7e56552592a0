/**
 * What a new part costs its thread before it writes at full pace: its read begins at a row index
 * entry and skips to its first row, its plan is built again, and its code warms up again (a part
 * of 7,832 rows took 241 ms where its neighbour wrote as many in 61 ms: bench/README.md).
 */
const START_SECONDS = 0.15;
/** A free thread takes rows from another only when it then has at least this long to go. */
const LEAST_SECONDS_TAKEN = 0.2;
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
 * claimed yet: the row to end the part after, or null when that is not worth a new part. The
 * free thread takes as many rows as leave both threads ending together at the part's pace so far,
 * its start (START_SECONDS) counted: only when that is at least LEAST_SECONDS_TAKEN and
 * LEAST_ROWS_TAKEN rows, and once the part has a pace.
 */
export function whereToCut({ fromRow, claimed, lastRow, seconds }: PartPace): number | null {
  const done = claimed - fromRow + 1;
  if (done <= 0 || seconds <= 0) return null;
  const secondsPerRow = seconds / done;
  const taken = Math.floor((lastRow - claimed - START_SECONDS / secondsPerRow) / 2);
  if (taken < LEAST_ROWS_TAKEN || taken * secondsPerRow < LEAST_SECONDS_TAKEN) return null;
  return lastRow - taken;
}
