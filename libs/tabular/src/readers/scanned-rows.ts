import type { Readable } from 'node:stream';
import { firstPieceMaxChars, inPieces, PIECE_CHARS, sniffDelimited } from './delimited-reader';
import { linebreakOf } from './line-break';
import { PieceLength } from './piece-length';
import { RowBatcher } from './row-batcher';
import { NotPlainDelimited, RowScanner } from './row-scanner';
import type { TableLimits } from './source-problem';
import { decodeText } from './text-decoding';

export interface ScannedRowsOptions {
  /** The file's delimiter and encoding, as its first read found them. */
  delimiter: string;
  encoding: string;
  /** The limits the file was read under at ingestion: within them, the scanner hands no file back for its size. */
  limits: TableLimits;
  /** Read from a row index entry: the line break the index recorded (no sniffing, no byte-order mark). */
  resumeWithLinebreak?: string;
  /** Which fields to read (by position); the others are given as empty text. Null or absent: every field. */
  columns?: readonly boolean[] | null;
}

/**
 * The rows of an ingested delimited file, in batches, as `openDelimited` yields them (blank rows
 * skipped, a byte-order mark off the first row), but found by the row scanner ingestion's pass
 * uses (row-scanner.ts) instead of papaparse: the scanner finds where each field starts and ends
 * with `indexOf` and builds only the fields asked for, where papaparse builds every field of every
 * row. A read that needs a few columns of a wide file (the duplicates pass: the fields that must
 * be unique) makes no text for the others.
 *
 * Throws `NotPlainDelimited` where the scanner would, at any point of the read: a file whose
 * quoting papaparse reads by rules of its own, or a byte-order mark after blank lines (the full
 * read strips it, the scanner does not). The caller then reads the file with `openDelimited`,
 * from where this read stopped (mapped-rows.ts in libs/run-source); scanned-rows.property.spec.ts
 * holds the rows to papaparse's.
 */
export async function* scannedRows(input: Readable, options: ScannedRowsOptions): AsyncGenerator<string[][]> {
  const fromTop = options.resumeWithLinebreak === undefined;
  const sniffed = fromTop ? await sniffDelimited(input, options.delimiter, options.encoding) : null;
  const bytes = sniffed?.replay ?? input;
  const batcher = new RowBatcher();
  const full: string[][][] = [];
  let first = fromTop;
  const kept = {
    columns: options.columns ?? null,
    take: (fields: string[]) => {
      if (first) {
        // openDelimited strips a mark from the first row papaparse gives, which after empty lines is not the file's first.
        if (fields[0].charCodeAt(0) === 0xfeff) throw new NotPlainDelimited('a byte-order mark after blank lines');
        first = false;
      }
      const batch = batcher.add(fields);
      if (batch) full.push(batch);
    },
  };
  try {
    const length = new PieceLength(PIECE_CHARS.parse);
    const pieces = inPieces(
      decodeText(bytes, options.encoding, !fromTop),
      null,
      length,
      options.delimiter,
      firstPieceMaxChars(options.limits),
    );
    let scanner: RowScanner | null = null;
    for await (const piece of pieces) {
      // The line break is decided on the first piece, as the full read and ingestion's scan decide it.
      scanner ??= new RowScanner(
        options.delimiter,
        options.resumeWithLinebreak ?? linebreakOf(piece, options.delimiter),
        options.limits,
        kept,
      );
      length.rowsEndAt(scanner.feed(piece));
      while (full.length > 0) yield full.shift()!;
      // Timers and I/O (other requests, on the API's thread) run between pieces, as between papaparse's chunks.
      await new Promise((resolve) => setImmediate(resolve));
    }
    scanner?.end();
    while (full.length > 0) yield full.shift()!;
    const last = batcher.take();
    if (last.length > 0) yield last;
  } finally {
    bytes.destroy();
  }
}
