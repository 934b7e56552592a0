import { SourceProblem, type TableLimits } from './source-problem';

/**
 * Watches decoded CSV text on its way to papaparse and stops it early when a row grows
 * past the limit (a huge field, or an unterminated quote swallowing the rest of the
 * file), before papaparse would buffer it, and names an unterminated quote at the end.
 * It only tracks RFC 4180 quoting and row ends (LF, CRLF, lone CR); papaparse parses.
 */
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

export async function* guardRows(
  text: AsyncIterable<string>,
  delimiter: string,
  limits: Pick<TableLimits, 'maxRowChars'>,
): AsyncGenerator<string> {
  // Character codes, not one-character strings: this loop sees every character of the file.
  const DELIMITER = delimiter.charCodeAt(0);
  let inQuotes = false;
  let fieldStart = true;
  let quotePending = false; // a quote seen inside a quoted field: closes it, or starts an escaped ""
  let rowChars = 0;
  let row = 1;
  let quoteRow = 0;
  for await (const chunk of text) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      rowChars++;
      if (inQuotes) {
        if (quotePending) {
          quotePending = false;
          if (c === QUOTE) continue; // escaped quote
          inQuotes = false; // the quote closed the field; fall through to read c normally
        } else {
          if (c === QUOTE) quotePending = true;
          else if (c === LF || c === CR) row += c === LF || chunk.charCodeAt(i + 1) !== LF ? 1 : 0;
          if (rowChars > limits.maxRowChars) {
            throw new SourceProblem(
              'unterminatedQuote',
              `A quoted field starting on line ${quoteRow} is longer than ${limits.maxRowChars} characters or never closed.`,
            );
          }
          continue;
        }
      }
      if (c === QUOTE && fieldStart) {
        inQuotes = true;
        quoteRow = row;
        fieldStart = false;
      } else if (c === LF || c === CR) {
        if (c === LF || chunk.charCodeAt(i + 1) !== LF) row++;
        rowChars = 0;
        fieldStart = true;
      } else {
        fieldStart = c === DELIMITER;
      }
      if (rowChars > limits.maxRowChars) {
        throw new SourceProblem('rowTooLarge', `Line ${row} is longer than ${limits.maxRowChars} characters.`);
      }
    }
    yield chunk;
  }
  if (inQuotes && !quotePending) {
    throw new SourceProblem('unterminatedQuote', `The quoted field starting on line ${quoteRow} is never closed.`);
  }
}
