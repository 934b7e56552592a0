/**
 * How many kinds of line are remembered before the memory starts over: each kind's next line
 * is then written, and the counts not yet written are dropped (the request metrics keep them).
 */
const MAX_KINDS = 10_000;

/**
 * Collapses a flood of alike access lines (a client polling one route): of the lines of one
 * kind, one is written per window and the others are counted; the next line written for
 * that kind says how many it stands for. A kind seen once in a while has every line
 * written, unlike random sampling, which would lose most of them.
 *
 * What a kind is, is the caller's choice (access-log.ts: method, route, status and who
 * called). Only the lines offered are counted (with LOG_SUCCESS_SAMPLE_RATE under 1, those
 * sampling kept). The count of the lines after the last one written is not written anywhere:
 * the request metrics count every request.
 */
export class RepeatedLines {
  private readonly kinds = new Map<string, { writtenAt: number; unwritten: number }>();

  /** `windowMs` 0: every line is written. */
  constructor(private readonly windowMs: number) {}

  /**
   * null: this line is counted, not written (another of its kind was written less than a
   * window ago). Else the line is to be written, and the number is how many of its kind
   * were counted, not written, since the last one written.
   */
  admit(kind: string, now: number): number | null {
    if (this.windowMs <= 0) return 0;
    const seen = this.kinds.get(kind);
    // A clock set back (now before the last line) ends the window rather than stretching it.
    if (seen && now >= seen.writtenAt && now - seen.writtenAt < this.windowMs) {
      seen.unwritten++;
      return null;
    }
    const unwritten = seen?.unwritten ?? 0;
    if (seen) {
      seen.writtenAt = now;
      seen.unwritten = 0;
    } else {
      if (this.kinds.size >= MAX_KINDS) this.kinds.clear();
      this.kinds.set(kind, { writtenAt: now, unwritten: 0 });
    }
    return unwritten;
  }
}
