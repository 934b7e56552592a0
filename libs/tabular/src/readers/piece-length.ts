/**
 * How long the next piece of text handed to a row parser is: its `base`, or as long as the row
 * the parser has not finished yet when that row is longer.
 *
 * Both parsers read an unfinished row again from its start with each new piece: papaparse joins
 * its partial line to the next chunk and parses it again, and the row scanner keeps the row's
 * start the same way (row-scanner.ts). With pieces of a fixed 16 KiB, a row of 1 MB was parsed
 * about 64 times over (a 100 MB file of such rows took 13 s of papaparse for its output, against
 * about 1 s for 100 MB of short rows). A piece at least as long as the unfinished row doubles the
 * text the parser holds each time, so any row is read about twice, whatever its length.
 *
 * The parser tells where its complete rows end (`rowsEndAt`) as it goes; when it tells late (a
 * stream between the two holds a piece), the next piece is only as long as what it knew, never wrong.
 */
export class PieceLength {
  /** Characters handed to the parser so far. */
  private handed = 0;
  /** Where the parser's complete rows end, in characters from the top of what it was handed. */
  private rowsEnd = 0;

  constructor(readonly base: number) {}

  handedOut(chars: number): void {
    this.handed += chars;
  }

  rowsEndAt(cursor: number): void {
    this.rowsEnd = cursor;
  }

  /** The unfinished row's length so far (the characters handed after the last complete row). */
  unfinished(): number {
    return this.handed - this.rowsEnd;
  }

  next(): number {
    return Math.max(this.base, this.unfinished());
  }

  /** Whether a row longer than a piece is unfinished: the next piece waits for text enough to be `next()` long. */
  longRowOpen(): boolean {
    return this.unfinished() > this.base;
  }
}
