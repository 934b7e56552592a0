import Papa from 'papaparse';
import { isBlankRow } from './delimited-reader';
import { ownCopy } from './own-copy';

/**
 * A delimited file's first rows, parsed as the scan finds where they end (the header is told from them).
 *
 * The text of each run of complete rows is parsed as soon as the scan has seen them end, and only the rows are kept:
 * parsing complete rows alone yields what parsing the whole text yields. Keeping the text until the scan's end and
 * parsing it then held the first rows twice over, text and rows, and with them the join of the text: for rows of
 * 1 MB (MAX_ROW_CHARS' default), 20 rows with quoted notes took the file-work thread past its heap (64 MB) and
 * failed the run with transformation_out_of_memory. Each cell kept is a copy of its own (own-copy.ts): a short cell
 * cut from the text kept the whole piece it was cut from, beside the notes' unescaped copies.
 */
export class HeadRows {
  readonly rows: string[][] = [];
  /** The text after the last complete row parsed: at most an unfinished row (the scanner's own limit bounds it). */
  private pending = '';
  /** Characters from the top up to the end of the rows parsed. */
  private parsedTo = 0;

  constructor(
    private readonly delimiter: string,
    private readonly newline: string,
    private readonly wanted: number,
  ) {}

  /** Whether the first `wanted` rows are in. */
  done(): boolean {
    return this.rows.length >= this.wanted;
  }

  /** The next piece of text, and where (characters from the top) the scan's complete rows end after it. */
  add(piece: string, rowsEnd: number): void {
    if (this.done()) return;
    this.pending += piece;
    const complete = rowsEnd - this.parsedTo;
    if (complete <= 0) return;
    const text = this.pending.slice(0, complete);
    this.pending = this.pending.slice(complete);
    this.parsedTo = rowsEnd;
    this.parse(text);
  }

  /** The end of the text: an unfinished last row (a file without a final line break) is parsed as it is. */
  end(): void {
    if (!this.done() && this.pending !== '') this.parse(this.pending);
    this.pending = '';
  }

  private parse(text: string): void {
    const parsed = Papa.parse<string[]>(text, {
      delimiter: this.delimiter,
      newline: this.newline as Papa.ParseConfig['newline'],
      skipEmptyLines: true,
    });
    for (const row of parsed.data) {
      if (this.done()) break;
      if (!isBlankRow(row)) this.rows.push(row.map(ownCopy));
    }
  }
}
