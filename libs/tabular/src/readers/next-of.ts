/**
 * Where the next occurrence of a string is in a text, found again with `indexOf` only once
 * passed: the scanners ask for positions that only grow, so each text is searched once for
 * each needle however often they ask.
 */
export class NextOf {
  private at = -1;
  private text = '';

  constructor(private readonly needle: string) {}

  reset(text: string): void {
    this.text = text;
    this.at = text.indexOf(this.needle);
  }

  /** The next position at or after `from` (never less than one asked for before); -1 when there is none. */
  from(from: number): number {
    if (this.at !== -1 && this.at < from) this.at = this.text.indexOf(this.needle, from);
    return this.at;
  }
}
