import type { Readable } from 'node:stream';
import type { DelimitedScan, FirstPartScan, LaterPartScan, LaterPartStart } from './delimited-scan';
import { joinRowWidths } from './row-widths';
import type { TableLimits } from './source-problem';
import { isSingleByteCodePage } from './text-decoding';

/*
 * Ingestion's scan of a big delimited file in two parts at once, one per CPU thread: the
 * bytes before a line feed near the middle, and the bytes from there to the end. The split
 * is a guess made without reading the top half: that line feed may be inside a quoted field.
 * The first part's scan says whether its bytes ended where a row ends; only then are the two
 * joined, and the result is what one scan of the whole file gives (tested). Otherwise the
 * caller scans the file from the top, as before.
 */

const LF = 0x0a;

/**
 * Encodings in which a line-feed byte is always a line feed and the bytes after it start a
 * character: UTF-8 and the single-byte code pages (not UTF-16, whose line feed is two bytes).
 */
export function splitsOnLineFeedBytes(encoding: string): boolean {
  return encoding === 'utf-8' || isSingleByteCodePage(encoding);
}

/**
 * The byte after the first line feed of `input` (which starts at byte `from` of the file),
 * looking at most `lookBytes` bytes; null when there is none, or when the next bytes are a
 * UTF-8 byte-order mark (the scanner hands back text that starts with one).
 */
export async function byteAfterNextLineFeed(input: Readable, from: number, lookBytes: number): Promise<number | null> {
  let seen = 0;
  let after: number | null = null;
  let following: Buffer | null = null;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      if (after === null) {
        const at = chunk.indexOf(LF);
        if (at === -1 || seen + at >= lookBytes) {
          seen += chunk.length;
          if (seen >= lookBytes) return null;
          continue;
        }
        after = from + seen + at + 1;
        following = chunk.subarray(at + 1);
      } else following = Buffer.concat([following!, chunk]);
      if (following.length >= 3) break;
    }
  } finally {
    input.destroy();
  }
  if (after === null) return null;
  const bom = following !== null && following.length >= 3 && following[0] === 0xef && following[1] === 0xbb && following[2] === 0xbf;
  return bom ? null : after;
}

/**
 * One scan of the whole file from its two parts, or null when they cannot be joined: the
 * first part did not end where a row ends (the split fell inside a quoted field), it saw a
 * line break other than the one the later part was scanned with, it holds fewer than the
 * `headRows` first rows, or the two together are over the row limit (the full read names it).
 */
export function joinScanParts(
  first: FirstPartScan,
  later: LaterPartScan,
  start: LaterPartStart,
  limits: Pick<TableLimits, 'maxRows'>,
  headRows: number,
): DelimitedScan | null {
  if (!first.endsAtRowStart || first.linebreak !== start.linebreak) return null;
  if (first.scan.delimiter !== start.delimiter || first.scan.encoding !== start.encoding) return null;
  if (first.scan.head.length < headRows) return null;
  const rows = first.scan.rows + later.rows;
  if (rows > limits.maxRows) return null;
  const index = first.scan.rowIndex;
  const rowIndex =
    index && later.entries
      ? {
          version: 1 as const,
          linebreak: first.linebreak,
          rows,
          entries: [
            ...index.entries,
            ...(first.scan.rows > 0 ? [[first.scan.rows, start.byte] as [number, number]] : []),
            ...later.entries.map(([r, byte]): [number, number] => [r + first.scan.rows, byte]),
          ].filter(([r]) => r < rows),
        }
      : null;
  return {
    ...first.scan,
    rows,
    widths: joinRowWidths(first.scan.widths, later.widths, first.scan.rows),
    rowIndex,
  };
}
