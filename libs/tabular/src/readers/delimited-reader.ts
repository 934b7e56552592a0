import Papa from 'papaparse';
import { Readable } from 'node:stream';
import { peekBytes } from './byte-peek';
import { checkContent } from './content-sniffing';
import { guardRows } from './row-guard';
import { firstLineEnd, linebreakOf } from './line-break';
import { PieceLength } from './piece-length';
import { RowIndexRecorder, type RowIndex } from './row-index';
import { TOP_ROWS_APART } from './row-widths';
import { DEFAULT_TABLE_LIMITS, checkRow, type TableLimits } from './source-problem';
import { RowBatcher } from './row-batcher';
import type { OpenedTable } from './table-reader';
import { decodeText, DECODED_TEXT_CHARS, detectEncoding } from './text-decoding';

const DELIMITERS = [',', ';', '\t', '|'];
/** The first bytes of a delimited file its encoding and delimiter are told from. */
export const SAMPLE_BYTES = 64 * 1024;

/**
 * Papaparse's own guess over a sample of the file; comma when it cannot tell. A title above the table (a line or a
 * few without the table's delimiter: "People export") keeps papaparse from telling a two-column table's, as the rows
 * it guesses on (its first ten) then average under two fields: when the guess splits no more than half the rows into
 * columns, it is made again without the first line, up to TOP_ROWS_APART lines (the most a title takes). A guess made
 * so counts only when it splits most of the rows left, and more rows are left than lines were dropped (a title is
 * shorter than its table): a short list of one column with a `;` in its last line keeps the first guess.
 */
export function detectDelimiter(sample: string): string {
  const first = guessDelimiter(sample);
  if (first.splitRows * 2 > first.rows) return first.delimiter;
  let text = sample;
  for (let skipped = 1; skipped <= TOP_ROWS_APART; skipped++) {
    const lineEnd = text.search(/\r\n|\n|\r/);
    if (lineEnd < 0) break;
    text = text.slice(lineEnd + (text.startsWith('\r\n', lineEnd) ? 2 : 1));
    const guess = guessDelimiter(text);
    if (guess.rows > skipped && guess.splitRows * 2 > guess.rows) return guess.delimiter;
  }
  return first.delimiter;
}

/** Papaparse's guess, the rows of the sample (up to 50) and how many of them it splits into two fields or more. */
function guessDelimiter(text: string): { delimiter: string; rows: number; splitRows: number } {
  const guess = Papa.parse<string[]>(text, { preview: 50, delimitersToGuess: DELIMITERS, skipEmptyLines: 'greedy' });
  const delimiter = guess.meta.delimiter && DELIMITERS.includes(guess.meta.delimiter) ? guess.meta.delimiter : ',';
  return { delimiter, rows: guess.data.length, splitRows: guess.data.filter((row) => row.length >= 2).length };
}

/**
 * How much text papaparse (and the scan, which does as it does) is handed at once. Storage
 * streams arrive in chunks of up to a MiB (an upload's gathered blocks; the local store reads 60 KiB); papaparse parses a 64 KiB piece in well under half
 * the time per character (measured on the bench's file: 1.1-1.5 s instead of 1.7-2.3 s for
 * 94 MB), as its per-chunk rows and partial lines then stay small and short-lived.
 * - `first`: papaparse guesses the line break on the first text it gets, so the first piece
 *   is 64 KiB for every read (a header of 1,000 long column names shows its line break), and
 *   longer when its first line is (`inPieces`).
 * - `scan`: ingestion's scan builds no rows, and the row index gets an entry per piece; no piece
 *   is longer than the texts decodeText hands over (DECODED_TEXT_CHARS, 32 Ki), so none is cut again.
 * - `parse`: the reader's later pieces. Every row of a piece is parsed at once and lives until
 *   the consumer has taken the last of them: with 64 KiB pieces and four queued, 720 wide rows
 *   were in flight on average, outlived two young-generation collections of the worker threads
 *   and were promoted (docs/decisions.md, "Rows in flight").
 */
export const PIECE_CHARS = { first: 64 * 1024, scan: DECODED_TEXT_CHARS, parse: 16 * 1024 } as const;

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const CR = 0x0d;
const LF = 0x0a;

/** Past this, a first piece with no line break is handed over anyway: no row of the default limits is longer (MAX_ROW_CHARS). */
const FIRST_PIECE_MAX_CHARS = 1024 * 1024;

/**
 * How long a first piece may wait for its line end under `limits`: as long as their longest row and its CRLF. Under a
 * raised MAX_ROW_CHARS a first row past a MiB is allowed, and a piece handed over before its line end left the line
 * break to papaparse's guess, which looks at a MiB only: a CRLF file was read with a CR ending every row's last value.
 */
export const firstPieceMaxChars = (limits: Pick<TableLimits, 'maxRowChars'>): number =>
  Math.max(FIRST_PIECE_MAX_CHARS, limits.maxRowChars + 2);

/**
 * Where the first piece of `text` (from its start) ends, given the `end` its size allows: past
 * the first line end outside quoted fields (the line break is decided on this piece: line-break.ts),
 * and past the LF of a CRLF; -1 when the text so far cannot tell.
 */
function firstPieceEnd(text: string, end: number, delimiter: string, maxChars: number): number {
  const first = firstLineEnd(text, delimiter);
  if (!first) return text.length >= maxChars ? end : -1;
  end = Math.max(end, first.at + first.length);
  if (text.charCodeAt(end - 1) === CR) {
    if (end === text.length) return -1;
    if (text.charCodeAt(end) === LF) end++;
  }
  return end;
}

/**
 * Text in pieces of `length.next()` after a first of at most PIECE_CHARS.first (slices of
 * a string share its memory), each shown to the index recorder. A piece ends where a text the
 * decoder handed over ends, unless a row longer than a piece is unfinished: then the texts are
 * joined until the piece is as long as that row so far (piece-length.ts), so the parser reads
 * each row about twice, not once per piece.
 *
 * The line break is decided on the first piece (line-break.ts): the first line end outside quoted
 * fields. So the first piece runs at least past that line end, and past the LF of a CRLF, waiting
 * for more text when it must (up to `firstMaxChars` without one, the longest row the limits let in:
 * firstPieceMaxChars; a first row longer is refused anyway). A first piece cut before it (a long
 * quoted header with a line break inside) had papaparse guess, and mis-read every row.
 */
export async function* inPieces(
  text: AsyncIterable<string>,
  recorder: RowIndexRecorder | null,
  length: PieceLength,
  delimiter: string,
  firstMaxChars = FIRST_PIECE_MAX_CHARS,
): AsyncGenerator<string> {
  let first = true;
  let held = ''; // text not handed over yet: the start of the file, or of a long row, while it is shorter than its piece
  for await (const arrived of text) {
    const chunk = held === '' ? arrived : held + arrived;
    held = '';
    for (let i = 0; i < chunk.length;) {
      const size = first ? PIECE_CHARS.first : length.next();
      if (!first && chunk.length - i < size && length.longRowOpen()) {
        held = i === 0 ? chunk : chunk.slice(i);
        break;
      }
      let end = Math.min(chunk.length, i + size);
      // Never between the two halves of a surrogate pair: each half alone would count 3 bytes in the row index, not 2.
      if (end < chunk.length && isHighSurrogate(chunk.charCodeAt(end - 1))) end--;
      if (first) {
        // The first piece starts the chunk (held text is put in front of the next chunk).
        end = firstPieceEnd(chunk, end, delimiter, firstMaxChars);
        if (end === -1) {
          held = chunk;
          break;
        }
      }
      const piece = i === 0 && end === chunk.length ? chunk : chunk.slice(i, end);
      recorder?.text(piece);
      length.handedOut(piece.length);
      yield piece;
      i = end;
      first = false;
    }
  }
  if (held !== '') {
    recorder?.text(held);
    length.handedOut(held.length);
    yield held;
  }
}

/** Pieces of text as the stream papaparse reads. */
const parseInput = (pieces: AsyncIterable<string>): Readable =>
  Readable.from(pieces, {
    objectMode: false,
    encoding: 'utf8',
    // One piece buffered, whatever Node's default (16 KiB in Node 20, 64 KiB from Node 22).
    highWaterMark: PIECE_CHARS.parse,
  });

/** `first`, then the rest of `pieces` (ended with it). */
async function* startingWith(first: string, pieces: AsyncGenerator<string>): AsyncGenerator<string> {
  try {
    yield first;
    for (let next = await pieces.next(); !next.done; next = await pieces.next()) yield next.value;
  } finally {
    await pieces.return(undefined);
  }
}

/** The rows papaparse parsed from one piece of text, and where in the text (characters from the top) they end. */
interface ParsedChunk {
  rows: string[][];
  cursor: number;
  linebreak: string;
}

/**
 * How many parsed chunks may wait for the consumer before papaparse is paused (back-pressure);
 * it resumes when none waits. One: papaparse parses the next piece only while the last is
 * being taken (PIECE_CHARS).
 */
const MAX_QUEUED_CHUNKS = 1;

/**
 * Papaparse's own Node stream reader (`Papa.parse(stream, {chunk})`), turned into an
 * async sequence of row arrays, one per chunk of text. Rows come a chunk at a time,
 * not one by one: iterating a row-per-item stream costs a promise per row, is ten
 * times slower, and starves the event loop (the HTTP server stops answering).
 */
async function* papaparseChunks(
  text: Readable,
  delimiter: string,
  linebreak: string | undefined,
  length: PieceLength,
): AsyncGenerator<ParsedChunk> {
  const queue: ParsedChunk[] = [];
  let finished = false;
  let failure = null as Error | null; // set by the parser's callback; the cast keeps TypeScript from narrowing it to null
  let paused = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  text.on('error', (err) => {
    failure = err;
    signal();
  });
  Papa.parse(text as unknown as File, {
    delimiter,
    // Given when reading from the middle of a file: the line break found at its top, not a new guess.
    newline: linebreak as Papa.ParseConfig['newline'],
    // Only truly empty lines here: 'greedy' joins and trims every row to test it (a tenth
    // of the parse); lines of blanks and delimiters are dropped by isBlankRow instead.
    skipEmptyLines: true,
    // Back-pressure on our own text stream (papaparse reads it on 'data'): papaparse's
    // pause() would stop parsing but keep buffering whatever the stream still emits.
    chunk: (results: Papa.ParseResult<string[]>) => {
      length.rowsEndAt(results.meta.cursor);
      queue.push({ rows: results.data, cursor: results.meta.cursor, linebreak: results.meta.linebreak });
      if (queue.length >= MAX_QUEUED_CHUNKS && !paused) {
        paused = true;
        text.pause();
      }
      signal();
    },
    complete: () => {
      finished = true;
      signal();
    },
    error: (err: Error) => {
      failure = err;
      signal();
    },
  });
  for (;;) {
    const next = queue.shift();
    if (next) {
      if (paused && queue.length === 0) {
        paused = false;
        text.resume();
      }
      yield next;
      // Let timers and I/O (other requests) run between chunks.
      await new Promise((r) => setImmediate(r));
      continue;
    }
    if (failure) throw failure;
    if (finished) return;
    await new Promise<void>((r) => {
      wake = r;
    });
  }
}

export interface DelimitedOptions {
  /** The encoding found when the file was first read; detected when absent. */
  encoding?: string | null;
  limits?: TableLimits;
  /**
   * The file passed these checks when it was ingested (and stored sources never change):
   * the row guard and the per-row limits are not run again.
   */
  alreadyIngested?: boolean;
  /**
   * The input starts at a row of the middle of an ingested file (a row index entry): no
   * sniffing, no byte-order mark, the delimiter and encoding given, and the line break the
   * index recorded.
   */
  resumeWithLinebreak?: string;
}

/** A row of nothing but blanks and delimiters, which papaparse's 'greedy' mode would skip; stops at the first real value. */
export function isBlankRow(row: string[]): boolean {
  for (const field of row) if (field.trim() !== '') return false;
  return true;
}

/** The first bytes of a delimited file, checked: its encoding and delimiter, and the whole stream to read again from its top. */
export interface SniffedDelimited {
  head: Buffer;
  /** The first bytes decoded (a character cut at their end left out). */
  sample: string;
  replay: Readable;
  encoding: string;
  delimiter: string;
}

/**
 * Looks at a delimited file's first 64 KiB: a binary file named .csv is refused, the
 * encoding is the recorded one or detected, the delimiter the given one or papaparse's guess.
 */
export async function sniffDelimited(input: Readable, delimiter: string | null, knownEncoding?: string | null): Promise<SniffedDelimited> {
  const { head: read, replay } = await peekBytes(input, SAMPLE_BYTES);
  // The first SAMPLE_BYTES exactly, however the stream cut its chunks (a 60 KiB read of a local file, a connection's
  // pieces): the same bytes decide for every read of one file.
  const head = read.subarray(0, SAMPLE_BYTES);
  let encoding: string;
  try {
    checkContent(head, 'delimited');
    encoding = knownEncoding ?? detectEncoding(head);
  } catch (err) {
    // Refused: the stream (a file handle, or a connection to the bucket) is let go here, as nobody will read it.
    replay.destroy();
    throw err;
  }
  let sample: string;
  try {
    sample = new TextDecoder(encoding === 'utf-8' ? 'utf-8' : encoding).decode(head, { stream: true });
  } catch {
    sample = head.toString('latin1');
  }
  return { head, sample, replay, encoding, delimiter: delimiter ?? detectDelimiter(sample.replace(/^\uFEFF/, '')) };
}

/**
 * Streams a CSV/TSV/TXT file as batches of rows, never holding the file: the bytes are
 * sniffed (a binary file named .csv is refused), decoded in the detected encoding
 * (invalid bytes stop the read), guarded (row size, unterminated quotes) and parsed by
 * papaparse's Node duplex stream with back-pressure. The delimiter is the given one, or
 * papaparse's guess on the first 64 KiB.
 */
export async function openDelimited(input: Readable, delimiter: string | null, options: DelimitedOptions = {}): Promise<OpenedTable> {
  if (options.resumeWithLinebreak !== undefined) return resumeDelimited(input, delimiter, options);
  const limits = options.limits ?? DEFAULT_TABLE_LIMITS;
  const { head, replay, encoding, delimiter: chosen } = await sniffDelimited(input, delimiter, options.encoding);
  // Only the first read of a file records where its rows start; later reads have its index.
  const recorder = options.alreadyIngested ? null : RowIndexRecorder.for(encoding, head);
  let index: RowIndex | null = null;

  async function* batches(): AsyncGenerator<string[][]> {
    const decoded = decodeText(replay, encoding);
    const length = new PieceLength(PIECE_CHARS.parse);
    const guarded = options.alreadyIngested ? decoded : guardRows(decoded, chosen, limits);
    const pieces = inPieces(guarded, recorder, length, chosen, firstPieceMaxChars(limits));
    const batcher = new RowBatcher();
    let rows = 0;
    let first = true;
    let text: Readable | null = null;
    try {
      // The line break is decided on the first piece, as the scan decides it, and told to papaparse.
      const top = await pieces.next();
      text = parseInput(top.done ? pieces : startingWith(top.value, pieces));
      for await (const parsed of papaparseChunks(text, chosen, top.done ? undefined : linebreakOf(top.value, chosen), length)) {
        for (const row of parsed.rows) {
          if (first) {
            row[0] = row[0].replace(/^\uFEFF/, '');
            first = false;
          }
          if (isBlankRow(row)) continue;
          rows++;
          if (!options.alreadyIngested) checkRow(row, rows, limits);
          const full = batcher.add(row);
          if (full) yield full;
        }
        recorder?.rowsEndAt(rows, parsed.cursor, parsed.linebreak);
      }
      const last = batcher.take();
      if (last.length > 0) yield last;
      index = recorder?.result(rows) ?? null;
    } finally {
      text?.destroy();
      replay.destroy();
    }
  }
  return { format: 'delimited', delimiter: chosen, encoding, batches: batches(), rowIndex: () => index };
}

/** Reads an ingested file from a row index entry: the rows after it, parsed as a read from the top parses them. */
function resumeDelimited(input: Readable, delimiter: string | null, options: DelimitedOptions): Promise<OpenedTable> {
  const encoding = options.encoding;
  if (!encoding || !delimiter) throw new Error('A delimited file read from the middle needs its encoding and delimiter.');
  async function* batches(): AsyncGenerator<string[][]> {
    const length = new PieceLength(PIECE_CHARS.parse);
    const text = parseInput(inPieces(decodeText(input, encoding!, true), null, length, delimiter!));
    const batcher = new RowBatcher();
    try {
      for await (const parsed of papaparseChunks(text, delimiter!, options.resumeWithLinebreak, length)) {
        for (const row of parsed.rows) {
          if (isBlankRow(row)) continue;
          const full = batcher.add(row);
          if (full) yield full;
        }
      }
      const last = batcher.take();
      if (last.length > 0) yield last;
    } finally {
      text.destroy();
      input.destroy();
    }
  }
  return Promise.resolve({ format: 'delimited', delimiter, encoding, batches: batches(), rowIndex: () => null });
}
