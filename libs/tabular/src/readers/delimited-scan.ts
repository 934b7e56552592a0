import type { Readable } from 'node:stream';
import { firstPieceMaxChars, inPieces, PIECE_CHARS, sniffDelimited } from './delimited-reader';
import { linebreakOf } from './line-break';
import { HeadRows } from './head-rows';
import { PieceLength } from './piece-length';
import { RowIndexRecorder, type RowIndex } from './row-index';
import type { RowWidthCounts } from './row-widths';
import { DEFAULT_TABLE_LIMITS, type TableLimits } from './source-problem';
import { BATCH_ROWS } from './table-reader';
import { decodeText } from './text-decoding';

import { NotPlainDelimited, RowScanner } from './row-scanner';

export { NotPlainDelimited };

/** What a delimited file's first read learns of it. */
export interface DelimitedScan {
  delimiter: string;
  encoding: string;
  /** The first rows (at most `headRows`), exactly as a read of the file yields them. */
  head: string[][];
  /** Rows a read yields (blank ones skipped). */
  rows: number;
  /** How many rows have each number of fields, and each number up to their last with a value. */
  widths: RowWidthCounts;
  /** Where its rows start (null for encodings whose byte offsets the text cannot tell). */
  rowIndex: RowIndex | null;
}

export interface ScanOptions {
  limits?: TableLimits;
  /** How many of the first rows to parse whole (for the header and the samples). */
  headRows: number;
  /** Hears the rows counted so far, every BATCH_ROWS or so. */
  onProgress?: (rows: number) => void;
  /** The encoding already detected on the same first bytes (detection is not run twice). */
  encoding?: string;
}

/**
 * A delimited file's first read, as `openDelimited` reads it (the same sniffing, decoding,
 * limits, blank rows and row index) but without building a row it does not need: the
 * scanner (row-scanner.ts) finds the rows, and papaparse parses only the first `headRows`.
 * Throws `NotPlainDelimited` for a file whose quoting papaparse reads by rules of its own,
 * and for one over a limit: the caller then reads it with `openDelimited`, whose row guard
 * names the refusal. So no row guard runs here (in front of the scanner it took a third of
 * ingestion's CPU).
 */
export async function scanDelimited(input: Readable, delimiter: string | null, options: ScanOptions): Promise<DelimitedScan> {
  const { scan } = await scanFromTop(input, delimiter, options, true);
  return scan;
}

/**
 * The first part of a file read in two (the bytes before a line feed somewhere in its middle):
 * what `scanDelimited` learns of those bytes, and whether they end where a row ends (when they
 * do not, the split fell inside a quoted field and the parts cannot be joined).
 */
export async function scanFirstPart(input: Readable, delimiter: string | null, options: ScanOptions): Promise<FirstPartScan> {
  return scanFromTop(input, delimiter, options, false);
}

export interface FirstPartScan {
  scan: DelimitedScan;
  linebreak: string;
  endsAtRowStart: boolean;
}

/** Where a later part starts, and what the top of the file decided for it. */
export interface LaterPartStart {
  /** Its first byte in the file: the byte after a line feed. */
  byte: number;
  encoding: string;
  delimiter: string;
  linebreak: string;
}

/** What the part of a file after `start.byte` holds; its row index entries are bytes of the whole file, rows of this part only. */
export interface LaterPartScan {
  rows: number;
  /** Row numbers of this part only (1 = its first row). */
  widths: RowWidthCounts;
  entries: [rows: number, byte: number][] | null;
}

/**
 * The later part of a file read in two, from `start.byte` to its end, read as the top's
 * scan would read it if that byte starts a row (the caller joins it only when the first part
 * says so): no sniffing, the top's delimiter, encoding and line break.
 */
export async function scanLaterPart(
  input: Readable,
  start: LaterPartStart,
  options: Omit<ScanOptions, 'headRows'>,
): Promise<LaterPartScan> {
  const limits = options.limits ?? DEFAULT_TABLE_LIMITS;
  const recorder = RowIndexRecorder.for(start.encoding, Buffer.alloc(0));
  const scanner = new RowScanner(start.delimiter, start.linebreak, limits);
  const reporter = progressReporter(options.onProgress);
  try {
    const length = new PieceLength(PIECE_CHARS.scan);
    for await (const piece of inPieces(decodeText(input, start.encoding, true), recorder, length, start.delimiter)) {
      const cursor = scanner.feed(piece);
      length.rowsEndAt(cursor);
      recorder?.rowsEndAt(scanner.rows, cursor, start.linebreak);
      reporter(scanner.rows);
    }
    scanner.end();
  } finally {
    input.destroy();
  }
  options.onProgress?.(scanner.rows);
  const entries = recorder?.result(scanner.rows).entries.map(([rows, byte]): [number, number] => [rows, byte + start.byte]) ?? null;
  return { rows: scanner.rows, widths: scanner.widths.counted(), entries };
}

/** Calls `onProgress` with the rows counted every BATCH_ROWS or so. */
function progressReporter(onProgress: ((rows: number) => void) | undefined): (rows: number) => void {
  let reported = 0;
  return (rows) => {
    if (rows - reported < BATCH_ROWS) return;
    reported = rows;
    onProgress?.(rows);
  };
}

/** The scan from the top of a file; `toEnd`: the input is the whole file (else the first part: its last row must end with it). */
async function scanFromTop(input: Readable, delimiter: string | null, options: ScanOptions, toEnd: boolean): Promise<FirstPartScan> {
  const limits = options.limits ?? DEFAULT_TABLE_LIMITS;
  const { head, replay, encoding, delimiter: chosen } = await sniffDelimited(input, delimiter, options.encoding);
  const recorder = RowIndexRecorder.for(encoding, head);
  let scanner: RowScanner | null = null;
  let top: HeadRows | null = null;
  let newline = '\n';
  let endsAtRowStart = true;
  const reporter = progressReporter(options.onProgress);
  try {
    const length = new PieceLength(PIECE_CHARS.scan);
    for await (const piece of inPieces(decodeText(replay, encoding), recorder, length, chosen, firstPieceMaxChars(limits))) {
      if (!scanner) {
        // Decided on the first piece, as the full read decides it.
        newline = linebreakOf(piece, chosen);
        scanner = new RowScanner(chosen, newline, limits);
        top = new HeadRows(chosen, newline, options.headRows);
      }
      const cursor = scanner.feed(piece);
      length.rowsEndAt(cursor);
      recorder?.rowsEndAt(scanner.rows, cursor, newline);
      top!.add(piece, cursor);
      reporter(scanner.rows);
    }
    if (toEnd) scanner?.end();
    else endsAtRowStart = scanner?.atRowStart() ?? true;
    top?.end();
  } finally {
    replay.destroy();
  }
  const rows = scanner?.rows ?? 0;
  options.onProgress?.(rows);
  const firstRows = top?.rows ?? [];
  // A byte-order mark after blank lines: the full read strips it from the first row it yields, papaparse here does not.
  if (firstRows[0]?.[0]?.charCodeAt(0) === 0xfeff) throw new NotPlainDelimited('a byte-order mark after blank lines');
  const scan = {
    delimiter: chosen,
    encoding,
    head: firstRows,
    rows,
    widths: scanner?.widths.counted() ?? { cells: [], filled: [], top: [] },
    rowIndex: recorder?.result(rows) ?? null,
  };
  return { scan, linebreak: newline, endsAtRowStart };
}
