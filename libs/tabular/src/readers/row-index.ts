import { isSingleByteCodePage } from './text-decoding';

/**
 * Where rows start in a delimited file, recorded while the file is first read (ingestion's
 * pass), so later readers can begin at any part of a big file instead of reading it from the
 * top: a page of the review far into a million rows, and each half of a two-thread output.
 *
 * Each entry is a point where papaparse had finished a row and was outside any quote: `rows`
 * rows (as the reader yields them: blank lines skipped, the header row counted) come before
 * byte `byte` of the stored file. Parsing from that byte with the same delimiter, line break
 * and encoding yields exactly the rows that follow it in a read from the top.
 */
export interface RowIndex {
  version: 1;
  /** The line break papaparse found at the top of the file (a reader starting mid-file must not guess it again). */
  linebreak: string;
  /** Rows the whole file yields. */
  rows: number;
  /** [rows before, byte offset], rows ascending. */
  entries: [rows: number, byte: number][];
}

/** Where a reader resumes: the byte to read from and the rows before it. */
export interface RowIndexEntry {
  rows: number;
  byte: number;
}

/** The last entry at or before `row` (rows counted from 0 as the reader yields them); null when none is past the top. */
export function entryAtOrBefore(index: RowIndex, row: number): RowIndexEntry | null {
  let lo = 0;
  let hi = index.entries.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (index.entries[mid][0] <= row) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const [rows, byte] = index.entries[found];
  return rows === 0 ? null : { rows, byte };
}

/** A stored index read back, checked; null when it is not one (an older or damaged blob: readers then start at the top). */
export function parseRowIndex(text: string): RowIndex | null {
  try {
    const value = JSON.parse(text) as Partial<RowIndex>;
    if (value.version !== 1 || typeof value.linebreak !== 'string' || !Array.isArray(value.entries) || typeof value.rows !== 'number')
      return null;
    return value as RowIndex;
  } catch {
    return null;
  }
}

/** Bytes each character takes in the encodings where that is exact from the text alone; null for the others. */
function byteLengthIn(encoding: string): ((text: string) => number) | null {
  if (encoding === 'utf-8') return (text) => Buffer.byteLength(text, 'utf8');
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return (text) => text.length * 2;
  if (isSingleByteCodePage(encoding)) return (text) => text.length;
  return null;
}

const BOM_BYTES: Record<string, number[]> = {
  'utf-8': [0xef, 0xbb, 0xbf],
  'utf-16le': [0xff, 0xfe],
  'utf-16be': [0xfe, 0xff],
};

/**
 * Follows the decoded text papaparse is given and turns its cursor (characters from the top)
 * into byte offsets of the stored file. Keeps only the pieces not yet passed by a cursor.
 */
export class RowIndexRecorder {
  private readonly pieces: { char: number; byte: number; text: string }[] = [];
  private chars = 0;
  private bytes: number;
  private readonly entries: [number, number][] = [];
  private linebreak: string | null = null;

  private constructor(
    private readonly byteLength: (text: string) => number,
    /** Bytes before the first character: a byte-order mark the decoder took away. */
    private readonly prelude: number,
  ) {
    this.bytes = prelude;
  }

  /** A recorder for a file in `encoding` whose first bytes are `head`; null when its offsets cannot be known exactly. */
  static for(encoding: string, head: Buffer): RowIndexRecorder | null {
    const byteLength = byteLengthIn(encoding);
    if (!byteLength) return null;
    // A code page's decoder skips a UTF-8 mark too (text-decoding.ts): a UTF-8 file read in one chosen in review.
    const bom = BOM_BYTES[encoding] ?? (isSingleByteCodePage(encoding) ? BOM_BYTES['utf-8'] : undefined);
    const hasBom = !!bom && bom.every((b, i) => head[i] === b);
    return new RowIndexRecorder(byteLength, hasBom ? bom.length : 0);
  }

  /** The next piece of text handed to the parser. A byte-order mark the decoder kept is counted by its own bytes. */
  text(piece: string): void {
    if (this.chars === 0 && this.prelude > 0 && piece.charCodeAt(0) === 0xfeff) this.bytes -= this.prelude;
    this.pieces.push({ char: this.chars, byte: this.bytes, text: piece });
    this.chars += piece.length;
    this.bytes += this.byteLength(piece);
  }

  /** Papaparse finished `rows` rows (all the reader has yielded so far) at character `cursor`. */
  rowsEndAt(rows: number, cursor: number, linebreak: string): void {
    this.linebreak ??= linebreak;
    while (this.pieces.length > 1 && this.pieces[0].char + this.pieces[0].text.length < cursor) this.pieces.shift();
    const piece = this.pieces[0];
    if (!piece || cursor < piece.char) return;
    const byte = piece.byte + this.byteLength(piece.text.slice(0, cursor - piece.char));
    const last = this.entries[this.entries.length - 1];
    if (rows > 0 && (!last || rows > last[0])) this.entries.push([rows, byte]);
  }

  /** The index of the whole file once it was read to its end. */
  result(totalRows: number): RowIndex {
    return { version: 1, linebreak: this.linebreak ?? '\n', rows: totalRows, entries: this.entries.filter(([rows]) => rows < totalRows) };
  }
}
