import { NextOf } from './next-of';
import { isTrimmedAway } from './row-scanner';
import { SourceProblem, type TableLimits } from './source-problem';

/**
 * Watches decoded CSV text on its way to papaparse and stops it early when a row grows
 * past the limit (a huge field, or an unterminated quote swallowing the rest of the
 * file), before papaparse would buffer it, and names an unterminated quote at the end.
 * It only tracks RFC 4180 quoting and row ends (LF, CRLF, lone CR); papaparse parses.
 *
 * It also refuses a quoted field whose closing quote is followed by anything but blanks and
 * then a delimiter or a line end (`4,"5"x,6`). Papaparse does not take such a quote as closing
 * and reads on to the next quote, however far: the rest of the file became one value and the
 * run delivered two rows of five, with no error. Such a file is malformed (RFC 4180), and
 * which reading its author meant cannot be told, so the run fails and says where.
 *
 * And it refuses line ends of more than one kind outside quoted fields (`1,2\r\n3,4\n5,6`).
 * Papaparse splits rows at the one kind it guesses from the file's start, so the rows ended by
 * another were joined to their neighbours' values, silently. Inside a quoted field any line end
 * is part of the value and allowed.
 *
 * It sees every character of the file, so it does not look at them one by one: it jumps
 * with `indexOf` (native code) from one character that matters to the next: a delimiter or
 * a line break outside quotes, a quote at the start of a field, and inside a quoted field
 * the next quote. Whatever lies between only adds to the row's length. What it decides is
 * what a character-by-character reading decides (row-guard.property.spec.ts holds one).
 */
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** The kinds of line end, as the refusal names them. */
export const LINE_ENDS = ['', 'a line feed (LF)', 'a carriage return and line feed (CRLF)', 'a carriage return (CR) alone'] as const;
export const LF_END = 1;
export const CRLF_END = 2;
export const CR_END = 3;

export async function* guardRows(
  text: AsyncIterable<string>,
  delimiter: string,
  limits: Pick<TableLimits, 'maxRowChars'>,
): AsyncGenerator<string> {
  const DELIMITER = delimiter.charCodeAt(0);
  const max = limits.maxRowChars;
  const delimiters = new NextOf(delimiter[0]);
  const lfs = new NextOf('\n');
  const crs = new NextOf('\r');
  const quotes = new NextOf('"');
  let inQuotes = false;
  let fieldStart = true;
  let quotePending = false; // a quote seen inside a quoted field: closes it, or starts an escaped ""
  let afterClose = false; // a quoted field just closed: only blanks may come before its delimiter or line end
  let blankAfterClose = false; // and some came
  let rowChars = 0;
  let row = 1;
  let quoteRow = 0;
  let lineEnd = 0; // the kind of the file's first line end outside quotes (0: none yet)
  let crOpen = false; // a CR outside quotes whose kind (CR or CRLF) the next character tells
  let previousChunkEnd = 0; // the code of the previous chunk's last character (a CR there pairs with an LF that starts this one)

  /** A line end outside quotes, of `kind`, ending line `line`: the same kind as the first, or the file is refused. */
  const lineEnded = (kind: number, line: number) => {
    if (lineEnd === 0) lineEnd = kind;
    else if (kind !== lineEnd)
      throw new SourceProblem(
        'mixedLineEnds',
        `Line ${line} ends with ${LINE_ENDS[kind]}, but the lines before it end with ${LINE_ENDS[lineEnd]}. ` +
          'Save the file with one kind of line end.',
      );
  };

  const tooLarge = () => new SourceProblem('rowTooLarge', `Line ${row} is longer than ${max} characters.`);
  const unterminated = () =>
    new SourceProblem('unterminatedQuote', `A quoted field starting on line ${quoteRow} is longer than ${max} characters or never closed.`);
  const malformed = () =>
    new SourceProblem(
      'malformedQuote',
      `On line ${row}, a quoted field's closing quote is followed by other text before the next delimiter or line end. ` +
        'Quote the whole field and double each quote inside it (for example "5""x").',
    );

  for await (const chunk of text) {
    delimiters.reset(chunk);
    lfs.reset(chunk);
    crs.reset(chunk);
    quotes.reset(chunk);
    /** The next position of a needle at or after `from`; the chunk's length when there is none. */
    const next = (of: NextOf, from: number): number => {
      const at = of.from(from);
      return at === -1 ? chunk.length : at;
    };
    /**
     * Lines that end in chunk[from, to) inside a quoted field: each CR, and each LF not right
     * after a CR. Counted at the CR, a CRLF is one line also when a chunk ends between the two.
     */
    const lineEnds = (from: number, to: number): number => {
      let n = 0;
      for (let p = next(crs, from); p < to; p = next(crs, p + 1)) n++;
      for (let p = next(lfs, from); p < to; p = next(lfs, p + 1)) if ((p === 0 ? previousChunkEnd : chunk.charCodeAt(p - 1)) !== CR) n++;
      return n;
    };
    let i = 0;
    while (i < chunk.length) {
      if (inQuotes) {
        const c = chunk.charCodeAt(i);
        if (quotePending) {
          quotePending = false;
          if (c === QUOTE) {
            rowChars++; // an escaped quote: still inside the field
            i++;
            continue;
          }
          inQuotes = false; // the quote closed the field; c is read below as any character outside quotes
          afterClose = true;
        } else {
          // Up to and with the next quote, every character is inside the field.
          const q = next(quotes, i);
          const end = q < chunk.length ? q + 1 : chunk.length;
          rowChars += end - i;
          row += lineEnds(i, end);
          if (rowChars > max) throw unterminated();
          if (q < chunk.length) quotePending = true;
          i = end;
          continue;
        }
      }
      const c = chunk.charCodeAt(i);
      if (crOpen) {
        crOpen = false;
        if (c === LF) {
          // The LF of a CRLF, whose line the CR already ended.
          lineEnded(CRLF_END, row - 1);
          i++;
          continue;
        }
        lineEnded(CR_END, row - 1);
      }
      if (afterClose) {
        if (c !== DELIMITER && c !== LF && c !== CR) {
          // Blanks as papaparse's trim() sees them (spaces, tabs, no-break spaces...) may; anything else may not.
          if (!isTrimmedAway(c)) throw malformed();
          blankAfterClose = true;
          rowChars++;
          if (rowChars > max) throw tooLarge();
          i++;
          continue;
        }
        afterClose = false;
        blankAfterClose = false;
      }
      if (c === QUOTE && fieldStart) {
        rowChars++;
        inQuotes = true;
        quoteRow = row;
        fieldStart = false;
        if (rowChars > max) throw tooLarge();
        i++;
        continue;
      }
      if (c === LF || c === CR) {
        if (c === LF) lineEnded(LF_END, row);
        else crOpen = true;
        row++;
        rowChars = 0;
        fieldStart = true;
        i++;
        continue;
      }
      if (c === DELIMITER) {
        rowChars++;
        fieldStart = true;
        if (rowChars > max) throw tooLarge();
        i++;
        continue;
      }
      // A run of ordinary characters (a quote inside an unquoted field is one), up to the next delimiter or line break.
      const runEnd = Math.min(next(delimiters, i + 1), next(lfs, i + 1), next(crs, i + 1));
      rowChars += runEnd - i;
      fieldStart = false;
      if (rowChars > max) throw tooLarge();
      i = runEnd;
    }
    if (chunk.length > 0) previousChunkEnd = chunk.charCodeAt(chunk.length - 1);
    yield chunk;
  }
  if (inQuotes && !quotePending) {
    throw new SourceProblem('unterminatedQuote', `The quoted field starting on line ${quoteRow} is never closed.`);
  }
  // Blanks after the last closing quote, then the end: papaparse keeps the quote and the blanks in the value.
  if (afterClose && blankAfterClose) throw malformed();
  if (crOpen) lineEnded(CR_END, row - 1);
}
