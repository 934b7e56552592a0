import fc from 'fast-check';
import { CR_END, CRLF_END, guardRows, LF_END, LINE_ENDS } from './row-guard';
import { isTrimmedAway } from './row-scanner';
import { SourceProblem, type TableLimits } from './source-problem';

/*
 * The guard jumps from one character that matters to the next; what it decides must be what
 * reading every character decides. The reference below is the guard as it was written first,
 * character by character: for any text cut into any chunks, both yield the same chunks and
 * stop at the same place with the same problem (kind and message, line numbers included).
 */
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

async function* referenceGuard(
  text: AsyncIterable<string>,
  delimiter: string,
  limits: Pick<TableLimits, 'maxRowChars'>,
): AsyncGenerator<string> {
  // Character codes, not one-character strings: this loop sees every character of the file.
  const DELIMITER = delimiter.charCodeAt(0);
  let inQuotes = false;
  let fieldStart = true;
  let quotePending = false; // a quote seen inside a quoted field: closes it, or starts an escaped ""
  let afterClose = false; // only blanks may follow a closing quote before a delimiter or line end
  let blankAfterClose = false;
  let rowChars = 0;
  let row = 1;
  let quoteRow = 0;
  let lineEnd = 0;
  let crOpen = false;
  let previous = 0; // the character before this one, whichever chunk it was in
  const malformed = () =>
    new SourceProblem(
      'malformedQuote',
      `On line ${row}, a quoted field's closing quote is followed by other text before the next delimiter or line end. ` +
        'Quote the whole field and double each quote inside it (for example "5""x").',
    );
  const lineEnded = (kind: number, line: number) => {
    if (lineEnd === 0) lineEnd = kind;
    else if (kind !== lineEnd)
      throw new SourceProblem(
        'mixedLineEnds',
        `Line ${line} ends with ${LINE_ENDS[kind]}, but the lines before it end with ${LINE_ENDS[lineEnd]}. ` +
          'Save the file with one kind of line end.',
      );
  };
  for await (const chunk of text) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      const before = previous;
      previous = c;
      rowChars++;
      if (inQuotes) {
        if (quotePending) {
          quotePending = false;
          if (c === QUOTE) continue; // escaped quote
          inQuotes = false; // the quote closed the field; fall through to read c normally
          afterClose = true;
        } else {
          if (c === QUOTE) quotePending = true;
          else if (c === CR || (c === LF && before !== CR)) row++; // a CRLF is one line, wherever the chunks end
          if (rowChars > limits.maxRowChars) {
            throw new SourceProblem(
              'unterminatedQuote',
              `A quoted field starting on line ${quoteRow} is longer than ${limits.maxRowChars} characters or never closed.`,
            );
          }
          continue;
        }
      }
      if (crOpen) {
        crOpen = false;
        if (c === LF) {
          lineEnded(CRLF_END, row - 1);
          rowChars = 0;
          continue;
        }
        lineEnded(CR_END, row - 1);
      }
      let blank = false;
      if (afterClose) {
        if (c !== DELIMITER && c !== LF && c !== CR) {
          if (!isTrimmedAway(c)) throw malformed();
          blank = true;
          blankAfterClose = true;
        } else {
          afterClose = false;
          blankAfterClose = false;
        }
      }
      if (blank) {
        // a blank after a closing quote: part of the row, nothing more
      } else if (c === QUOTE && fieldStart) {
        inQuotes = true;
        quoteRow = row;
        fieldStart = false;
      } else if (c === LF || c === CR) {
        if (c === LF) lineEnded(LF_END, row);
        else crOpen = true;
        row++;
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
  if (afterClose && blankAfterClose) throw malformed();
  if (crOpen) lineEnded(CR_END, row - 1);
}

type Outcome = { chunks: string[]; problem: string | null };

async function outcomeOf(guard: typeof guardRows, chunks: string[], delimiter: string, maxRowChars: number): Promise<Outcome> {
  const seen: string[] = [];
  async function* source() {
    yield* chunks;
  }
  try {
    for await (const chunk of guard(source(), delimiter, { maxRowChars })) seen.push(chunk);
    return { chunks: seen, problem: null };
  } catch (err) {
    if (!(err instanceof SourceProblem)) throw err;
    return { chunks: seen, problem: `${err.kind}: ${err.message}` };
  }
}

/** Text made mostly of what the guard watches: quotes, delimiters, CR, LF, and a few ordinary characters. */
const text = fc
  .array(fc.constantFrom('"', '""', ',', ';', '\n', '\r', '\r\n', 'a', 'bc', ' ', 'é', '"x"', 'long ordinary text'), { maxLength: 80 })
  .map((parts) => parts.join(''));

/** The text cut at random places into chunks (as storage and the decoder hand it over). */
const chunked = (s: string) =>
  fc.array(fc.nat({ max: Math.max(0, s.length) }), { maxLength: 6 }).map((cuts) => {
    const at = [...new Set(cuts)].sort((a, b) => a - b);
    const out: string[] = [];
    let from = 0;
    for (const c of at) {
      out.push(s.slice(from, c));
      from = c;
    }
    out.push(s.slice(from));
    return out.filter((c) => c.length > 0);
  });

describe('guardRows', () => {
  it('decides what a character-by-character reading decides, for any text, chunks, delimiter and limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        text.chain((s) => chunked(s)),
        fc.constantFrom(',', ';', '\t'),
        fc.integer({ min: 1, max: 40 }),
        async (chunks, delimiter, maxRowChars) => {
          const fast = await outcomeOf(guardRows, chunks, delimiter, maxRowChars);
          const reference = await outcomeOf(referenceGuard as typeof guardRows, chunks, delimiter, maxRowChars);
          expect(fast).toEqual(reference);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('lets a well-formed file through whole and stops an unterminated quote and an overlong line', async () => {
    const limit: Pick<TableLimits, 'maxRowChars'> = { maxRowChars: 30 };
    const good = ['id,"name, quoted",x\r\n1,"say ""hi""",', '2\r\n3,"two\nlines",4\r\n'];
    expect(await outcomeOf(guardRows, good, ',', 30)).toEqual({ chunks: good, problem: null });
    expect((await outcomeOf(guardRows, ['a,b\n1,"open', ' and never closed'], ',', 1000)).problem).toBe(
      'unterminatedQuote: The quoted field starting on line 2 is never closed.',
    );
    expect((await outcomeOf(guardRows, ['a,b\n', 'x'.repeat(31)], ',', limit.maxRowChars)).problem).toBe(
      'rowTooLarge: Line 2 is longer than 30 characters.',
    );
  });

  it('stops line ends of another kind than the first outside quotes (papaparse joined those rows), wherever a chunk ends', async () => {
    const cases: [string, string][] = [
      [
        'a,b,c\r\n1,2,3\n4,5,6\r\n',
        'Line 2 ends with a line feed (LF), but the lines before it end with a carriage return and line feed (CRLF).',
      ],
      ['a,b\n1,2\r3,4\n', 'Line 2 ends with a carriage return (CR) alone, but the lines before it end with a line feed (LF).'],
      [
        'a,b\r1,2\r\n',
        'Line 2 ends with a carriage return and line feed (CRLF), but the lines before it end with a carriage return (CR) alone.',
      ],
      ['a,b\n1,2\r', 'Line 2 ends with a carriage return (CR) alone, but the lines before it end with a line feed (LF).'],
    ];
    for (const [file, message] of cases)
      for (let cut = 0; cut < file.length; cut++) {
        const chunks = [file.slice(0, cut), file.slice(cut)].filter((c) => c.length > 0);
        expect([file, cut, (await outcomeOf(guardRows, chunks, ',', 1000)).problem]).toEqual([
          file,
          cut,
          `mixedLineEnds: ${message} Save the file with one kind of line end.`,
        ]);
      }
    // One kind throughout, also a CRLF cut between its CR and its LF; any line end inside a quoted field.
    for (const file of ['a,b\r\n1,"x\ny\rz"\r\n2,3\r\n', 'a,b\r1,2\r', 'a,b\n"1\r\n2",3\n'])
      for (let cut = 0; cut < file.length; cut++) {
        const chunks = [file.slice(0, cut), file.slice(cut)].filter((c) => c.length > 0);
        expect(await outcomeOf(guardRows, chunks, ',', 1000)).toEqual({ chunks, problem: null });
      }
  });

  it('numbers lines the same wherever a chunk ends, also between the CR and the LF of a CRLF inside a quoted field', async () => {
    const file = 'a,b\r\n1,"x\r\ny\r\nz"\r\n2,3\r\n4,"5"x\r\n';
    for (let cut = 1; cut < file.length; cut++) {
      expect([cut, (await outcomeOf(guardRows, [file.slice(0, cut), file.slice(cut)], ',', 1000)).problem]).toEqual([
        cut,
        expect.stringMatching(/^malformedQuote: On line 6,/),
      ]);
    }
  });

  it('stops a closing quote followed by other text (papaparse would read on to the next quote), wherever a chunk ends', async () => {
    const file = 'a,b,c\n1,2,3\n4,"5"x,6\n7,8,9\n';
    for (let cut = 1; cut < file.length; cut++) {
      expect((await outcomeOf(guardRows, [file.slice(0, cut), file.slice(cut)], ',', 1000)).problem).toMatch(
        /^malformedQuote: On line 3, a quoted field's closing quote is followed by other text/,
      );
    }
    // Blanks between the closing quote and the delimiter or the line end, as papaparse allows, and a quote at the very end.
    const allowed = ['a,b\n"1"  ,"2" \n"3"\t,"4"\u00a0\n"5","6"'];
    expect(await outcomeOf(guardRows, allowed, ',', 1000)).toEqual({ chunks: allowed, problem: null });
    // Blanks after the last closing quote and then the end: papaparse keeps the quote and the blanks in the value.
    expect((await outcomeOf(guardRows, ['a,b\n"1","2"  '], ',', 1000)).problem).toMatch(/^malformedQuote: On line 2/);
  });
});
