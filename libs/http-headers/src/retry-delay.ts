import { exponentialDelay } from 'axios-retry';

/** The longest delay a Node timer waits: a longer one fires at once (with a warning), so the retry it holds would come immediately. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * The wait before retry number `retryCount` (1 for the first) of an outgoing call: twice as long each time from
 * `baseMs`, with up to 20% jitter (axios-retry's exponentialDelay), never past what a timer can wait. With enough
 * attempts and a large base the doubling passed 2^31 - 1 ms, and those retries came at once, hammering the other side.
 *
 * No Retry-After is looked at here (axios-retry's own delay takes any Retry-After, however long): a caller that
 * honours one up to a bound decides that first.
 */
export function backoffDelayMs(retryCount: number, baseMs: number): number {
  return Math.min(exponentialDelay(retryCount, undefined, baseMs / 2), LONGEST_TIMER_MS);
}
