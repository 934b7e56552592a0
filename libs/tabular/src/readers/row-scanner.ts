import { NextOf } from './next-of';
import { RowWidths } from './row-widths';
import { maxCellsOf, type TableLimits } from './source-problem';

/**
 * Ingestion's pass over a delimited file without building its rows: where each row ends,
 * how many fields it has, whether any field has more than blanks, and the first field over
 * the size limit. That is all the first read needs of most of a file (its row count, its
 * width, the hostile-file limits, the row index); papaparse builds arrays of strings for
 * every row, which cost the thread more in garbage than in parsing.
 *
 * It reads rows as papaparse does with a known delimiter and line break, for files whose
 * quoting is well formed: a quoted field closes with a quote followed by the delimiter, the
 * line break or the end of the file. Anything else (a quote followed by other text, spaces
 * after a closing quote, a byte-order mark kept in the text) is where papaparse has rules of
 * its own: the scanner stops with `NotPlainDelimited`, and the caller reads the file with
 * papaparse instead. delimited-scan.property.spec.ts holds it to papaparse's reading.
 *
 * A file over a limit (rows, columns, a field's or a row's size, line break included) is handed
 * back too, so the scanner keeps at most `maxRowChars` of a row in progress and needs no row
 * guard in front of it: the papaparse read has the guard (row-guard.ts) and names the refusal
 * exactly. Well-formed files within the limits, the common case, are read once.
 */
export class NotPlainDelimited extends Error {
  constructor(reason: string) {
    super(`Not plain delimited text: ${reason}`);
  }
}

const QUOTE = 0x22;

/** ECMAScript's white space and line terminators: what String.prototype.trim removes. */
export function isTrimmedAway(c: number): boolean {
  return c <= 0x20
    ? c === 0x20 || (c >= 0x09 && c <= 0x0d)
    : c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff;
}

function hasText(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isTrimmedAway(text.charCodeAt(i))) return true;
  return false;
}

/**
 * A limit crossed (rows, columns, field or row size): the file is handed back, and the papaparse
 * read refuses it. That read checks rows ahead of papaparse (the row guard runs over each piece
 * before papaparse parses it), so which refusal a file gets is its own: the same by either read.
 */
const overLimit = () => new NotPlainDelimited('a limit is crossed: the full read names it');

/** A row ended (`end`: the character after its line break) or the text ran out first (-1). */
const INCOMPLETE = -1;

/**
 * What a scan keeps of each row it counts, when asked (scanned-rows.ts): the row's fields as papaparse gives them (a
 * quoted field without its quotes, `""` read as `"`), to `take`. `columns`: which fields are read; the others are
 * given as empty text, so a row has as many fields either way (null: every field).
 */
export interface KeptRows {
  take: (fields: string[]) => void;
  columns: readonly boolean[] | null;
}

export class RowScanner {
  /** Rows counted: rows with a field that is more than blanks (blank rows are skipped, as the reader skips them). */
  rows = 0;
  /** How many counted rows have each number of fields, and each number up to their last field with a value. */
  readonly widths: RowWidths;
  /** Characters before the text not yet scanned (the start of the row in progress). */
  private consumed = 0;
  private partial = '';
  private readonly delimiters: NextOf;
  private readonly newlines: NextOf;
  private readonly crs = new NextOf('\r');
  private readonly lfs = new NextOf('\n');
  private readonly DELIMITER: number;
  private readonly maxCells: number;
  /** The row in progress's fields, three numbers each (where its text starts and ends, its doubled quotes), when rows are kept. */
  private readonly bounds: number[] = [];

  constructor(
    delimiter: string,
    private readonly newline: string,
    private readonly limits: Pick<TableLimits, 'maxRows' | 'maxColumns' | 'maxFieldChars' | 'maxRowChars'>,
    private readonly kept: KeptRows | null = null,
  ) {
    if (delimiter.length !== 1 || delimiter === '"') throw new NotPlainDelimited('delimiter');
    this.DELIMITER = delimiter.charCodeAt(0);
    this.maxCells = maxCellsOf(limits);
    this.delimiters = new NextOf(delimiter);
    this.newlines = new NextOf(newline);
    this.widths = new RowWidths();
  }

  /** The next piece of text. Returns where (characters from the top) the last complete row so far ends. */
  feed(piece: string): number {
    if (this.consumed === 0 && this.partial === '' && piece.charCodeAt(0) === 0xfeff) throw new NotPlainDelimited('byte-order mark');
    const text = this.partial === '' ? piece : this.partial + piece;
    const done = this.scan(text, false);
    this.partial = text.slice(done);
    if (this.partial.length > this.limits.maxRowChars) throw overLimit();
    this.consumed += done;
    return this.consumed;
  }

  /** Whether every character fed so far belongs to a row that ended (no row is in progress). */
  atRowStart(): boolean {
    return this.partial === '';
  }

  /** The end of the text: the row in progress, if any, is the last. */
  end(): void {
    if (this.partial !== '') this.scan(this.partial, true);
    this.partial = '';
  }

  /** Scans the complete rows of `text` (all of it when `final`); returns how many characters they took. */
  private scan(text: string, final: boolean): number {
    this.delimiters.reset(text);
    this.newlines.reset(text);
    this.crs.reset(text);
    this.lfs.reset(text);
    let start = 0;
    while (start < text.length) {
      const end = this.row(text, start, final);
      if (end === INCOMPLETE) break;
      start = end;
    }
    return start;
  }

  /** One row from `start`: counted and checked when it ends; INCOMPLETE when the text ends first (and is not final). */
  private row(text: string, start: number, final: boolean): number {
    const limits = this.limits;
    let p = start;
    let fields = 0;
    let lastFilled = 0; // the number of the row's last field with more than blanks (0: none, a blank row)
    let longField = false;
    let rowEnd = INCOMPLETE;
    // Where each field's text is, when the rows are kept: its fields are made once the row ends, as a row the text ends
    // inside is scanned again from its start with the next piece (a row of a MB would otherwise be cut and unescaped
    // at each piece it spans).
    const bounds = this.kept === null ? null : this.bounds;
    if (bounds !== null) bounds.length = 0;
    for (;;) {
      let chars: number;
      let contentFrom: number;
      let contentTo: number;
      let escaped = 0;
      let next: number; // where the next field starts, or -1 when the row ended
      if (text.charCodeAt(p) === QUOTE) {
        let q = p + 1;
        for (;;) {
          q = text.indexOf('"', q);
          if (q === -1) {
            if (final) throw new NotPlainDelimited('unterminated quote');
            return INCOMPLETE;
          }
          if (q + 1 === text.length) {
            if (!final) return INCOMPLETE; // what follows the quote is not known yet
            next = -1;
            rowEnd = text.length;
            break;
          }
          const after = text.charCodeAt(q + 1);
          if (after === QUOTE) {
            escaped++;
            q += 2;
            continue;
          }
          if (after === this.DELIMITER) {
            next = q + 2;
            break;
          }
          if (text.startsWith(this.newline, q + 1)) {
            next = -1;
            rowEnd = q + 1 + this.newline.length;
            break;
          }
          if (!final && q + 1 + this.newline.length > text.length && this.newline.startsWith(text.slice(q + 1))) return INCOMPLETE;
          throw new NotPlainDelimited('text after a closing quote');
        }
        contentFrom = p + 1;
        contentTo = q;
        chars = q - p - 1 - escaped;
      } else {
        const d = this.delimiters.from(p);
        const n = this.newlines.from(p);
        if (d !== -1 && (n === -1 || d < n)) {
          contentTo = d;
          next = d + 1;
        } else if (n !== -1) {
          contentTo = n;
          next = -1;
          rowEnd = n + this.newline.length;
        } else {
          if (!final) return INCOMPLETE;
          contentTo = text.length;
          next = -1;
          rowEnd = text.length;
        }
        if (this.strayLineBreak(p, contentTo)) throw new NotPlainDelimited("a line break other than the file's");
        contentFrom = p;
        chars = contentTo - p;
      }
      if (bounds !== null) bounds.push(contentFrom, contentTo, escaped);
      fields++;
      if (escaped > 0 || hasText(text, contentFrom, contentTo)) lastFilled = fields;
      if (chars > limits.maxFieldChars) longField = true;
      if (next === -1) break;
      p = next;
    }
    if (rowEnd - start > limits.maxRowChars) throw overLimit();
    if (lastFilled > 0) {
      // The column limit counts a row's cells up to its last value: empty cells past it hold nothing, and a sheet exported
      // with a used range wider than its data ends every line with thousands of delimiters (a workbook's empty cells are not
      // even written), up to a sheet's width (maxCellsOf). Tallied up to one past the limit, which every comparison with
      // the first row's values tells apart.
      if (++this.rows > limits.maxRows || lastFilled > limits.maxColumns || fields > this.maxCells || longField) throw overLimit();
      this.widths.note(Math.min(fields, limits.maxColumns + 1), lastFilled, this.rows);
      if (bounds !== null) this.keep(text, bounds);
    }
    return rowEnd;
  }

  /** Hands the kept fields of a row that ended to `kept.take`: a quoted field without its quotes, `""` read as `"`. */
  private keep(text: string, bounds: number[]): void {
    const { columns, take } = this.kept!;
    const fields = new Array<string>(bounds.length / 3);
    for (let i = 0, f = 0; i < bounds.length; i += 3, f++) {
      if (columns !== null && columns[f] !== true) fields[f] = '';
      else if (bounds[i + 2] > 0) fields[f] = text.slice(bounds[i], bounds[i + 1]).replaceAll('""', '"');
      else fields[f] = text.slice(bounds[i], bounds[i + 1]);
    }
    take(fields);
  }

  /**
   * A CR or LF outside quotes in [from, to), before the next line break: one that is not the
   * file's line break. The row guard of the papaparse read ends lines at any of them, so its
   * rows, quotes and refusals could differ from the scanner's: such a file is read by papaparse.
   */
  private strayLineBreak(from: number, to: number): boolean {
    const cr = this.crs.from(from);
    const lf = this.lfs.from(from);
    return (cr !== -1 && cr < to) || (lf !== -1 && lf < to);
  }
}
