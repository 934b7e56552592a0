import { NextOf } from './next-of';
import { SourceProblem, type TableLimits } from './source-problem';

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

/** A row ended (`end`: the character after its line break) or the text ran out first (-1). */
const INCOMPLETE = -1;

export class RowScanner {
  /** Rows counted: rows with a field that is more than blanks (blank rows are skipped, as the reader skips them). */
  rows = 0;
  /** The most fields a counted row has. */
  width = 0;
  /** Characters before the text not yet scanned (the start of the row in progress). */
  private consumed = 0;
  private partial = '';
  private readonly delimiters: NextOf;
  private readonly newlines: NextOf;
  private readonly DELIMITER: number;

  constructor(
    delimiter: string,
    private readonly newline: string,
    private readonly limits: Pick<TableLimits, 'maxRows' | 'maxColumns' | 'maxFieldChars'>,
  ) {
    if (delimiter.length !== 1 || delimiter === '"') throw new NotPlainDelimited('delimiter');
    this.DELIMITER = delimiter.charCodeAt(0);
    this.delimiters = new NextOf(delimiter);
    this.newlines = new NextOf(newline);
  }

  /** The next piece of text. Returns where (characters from the top) the last complete row so far ends. */
  feed(piece: string): number {
    if (this.consumed === 0 && this.partial === '' && piece.charCodeAt(0) === 0xfeff) throw new NotPlainDelimited('byte-order mark');
    const text = this.partial === '' ? piece : this.partial + piece;
    const done = this.scan(text, false);
    this.partial = text.slice(done);
    this.consumed += done;
    return this.consumed;
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
    let filled = false;
    let longColumn = -1;
    let longChars = 0;
    let rowEnd = INCOMPLETE;
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
        contentFrom = p;
        chars = contentTo - p;
      }
      if (!filled && (escaped > 0 || hasText(text, contentFrom, contentTo))) filled = true;
      if (longColumn < 0 && chars > limits.maxFieldChars) {
        longColumn = fields;
        longChars = chars;
      }
      fields++;
      if (next === -1) break;
      p = next;
    }
    if (filled) {
      const rowNumber = ++this.rows;
      if (rowNumber > limits.maxRows) throw new SourceProblem('tooManyRows', `The file has more than ${limits.maxRows} rows.`);
      if (fields > limits.maxColumns)
        throw new SourceProblem('tooManyColumns', `Row ${rowNumber} has ${fields} columns; at most ${limits.maxColumns} are allowed.`);
      if (longColumn >= 0) {
        throw new SourceProblem(
          'fieldTooLarge',
          `Row ${rowNumber}, column ${longColumn + 1} has ${longChars} characters; at most ${limits.maxFieldChars} are allowed.`,
        );
      }
      if (fields > this.width) this.width = fields;
    }
    return rowEnd;
  }
}
