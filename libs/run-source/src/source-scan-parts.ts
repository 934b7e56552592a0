import type { BlobStore } from '@app/blob-storage';
import type { RunState } from '@app/domain';
import {
  NotPlainDelimited,
  SourceProblem,
  byteAfterNextLineFeed,
  linebreakOf,
  scanFirstPart,
  scanLaterPart,
  sniffDelimited,
  splitsOnLineFeedBytes,
  tableFormatOf,
  type FirstPartScan,
  type LaterPartScan,
  type LaterPartStart,
  type TableLimits,
} from '@app/tabular';
import { HEADER_SAMPLE_ROWS } from './inspect-structured-file';

/*
 * Ingestion's scan of a big delimited file on two threads (libs/tabular's
 * delimited-scan-parts.ts): where to split it, and each part's scan, read from storage.
 */

/** Below this size one thread scans the whole file: the scan takes well under a second. */
const SPLIT_FROM_BYTES = 16 * 1024 * 1024;

/** How far past the middle a line feed is looked for before the file is scanned whole. */
const LOOK_FOR_LINE_FEED_BYTES = 1024 * 1024;

/** Whether a source of this name and size is a delimited file big enough to be scanned in two parts (what its bytes say is decided by `planSourceSplit`). */
export function sizeMayScanInParts(filename: string | undefined | null, sizeBytes: number): boolean {
  return tableFormatOf(filename ?? '')?.format === 'delimited' && sizeBytes >= SPLIT_FROM_BYTES;
}

/** The size of a run's source when it is a delimited file big enough to be scanned in two parts; null otherwise. */
async function sizeToSplit(blobs: BlobStore, run: RunState): Promise<number | null> {
  if (tableFormatOf(run.filename ?? '')?.format !== 'delimited') return null; // a workbook is not even stat'ed
  const size = (await blobs.stat(run.source_key))?.size ?? 0;
  return sizeMayScanInParts(run.filename, size) ? size : null;
}

/** Whether a run's source is a delimited file big enough to be scanned in two parts (the rest is decided by `planSourceSplit`). */
export async function mayScanInParts(blobs: BlobStore, run: RunState): Promise<boolean> {
  return (await sizeToSplit(blobs, run)) !== null;
}

/**
 * Where the later part of a run's source starts, with what the top of the file decides for
 * it (encoding, delimiter, line break); null when the file is scanned whole: not delimited,
 * small, in an encoding whose line feeds are not single bytes, a line break that does not end
 * in a line feed (CR alone), or no line feed near the middle. Both parts' threads work it out
 * for themselves (it sniffs the top as every read does, and reads a little at the middle), so
 * they start at once. `encoding`: the file is read in it rather than in the one detected.
 */
export async function planSourceSplit(blobs: BlobStore, run: RunState, encoding?: string): Promise<LaterPartStart | null> {
  const size = await sizeToSplit(blobs, run);
  if (size === null) return null;
  let sniffed;
  try {
    sniffed = await sniffDelimited(await blobs.openRead(run.source_key), tableFormatOf(run.filename!)!.delimiter, encoding);
  } catch (err) {
    if (err instanceof SourceProblem) return null; // the whole read names it
    throw err;
  }
  sniffed.replay.destroy();
  const { sample, delimiter } = sniffed;
  if (!splitsOnLineFeedBytes(sniffed.encoding)) return null;
  // Decided as the scan of the first part decides it on its first piece; the join checks that they agree.
  const linebreak = linebreakOf(sample, delimiter);
  if (!linebreak.endsWith('\n')) return null;
  const middle = Math.floor(size / 2);
  const byte = await byteAfterNextLineFeed(
    await blobs.openRead(run.source_key, { start: middle, end: middle + LOOK_FOR_LINE_FEED_BYTES + 3 }),
    middle,
    LOOK_FOR_LINE_FEED_BYTES,
  );
  return byte === null || byte >= size ? null : { byte, encoding: sniffed.encoding, delimiter, linebreak };
}

/**
 * A part's scan and where the file was split; 'no split' when `planSourceSplit` says the file
 * is read whole; 'not plain' when it must be (its quoting, a limit crossed, a bad byte: the
 * whole read decides).
 */
export type PartScan<T> = { start: LaterPartStart; scan: T } | 'no split' | 'not plain';

async function partScan<T>(
  blobs: BlobStore,
  run: RunState,
  encoding: string | undefined,
  scan: (start: LaterPartStart) => Promise<T>,
): Promise<PartScan<T>> {
  const start = await planSourceSplit(blobs, run, encoding);
  if (!start) return 'no split';
  try {
    return { start, scan: await scan(start) };
  } catch (err) {
    if (err instanceof NotPlainDelimited || err instanceof SourceProblem) return 'not plain';
    throw err;
  }
}

/** The scan of the source's bytes before the split; in `encoding` when given (else the one detected), as the later part's. */
export function scanSourceFirstPart(
  blobs: BlobStore,
  run: RunState,
  limits: TableLimits,
  onProgress: (rows: number) => void,
  encoding?: string,
): Promise<PartScan<FirstPartScan>> {
  return partScan(blobs, run, encoding, async (start) => {
    const input = await blobs.openRead(run.source_key, { end: start.byte });
    return scanFirstPart(input, start.delimiter, { limits, headRows: HEADER_SAMPLE_ROWS, onProgress, encoding: start.encoding });
  });
}

/** The scan of the source's bytes from the split to its end. */
export function scanSourceLaterPart(
  blobs: BlobStore,
  run: RunState,
  limits: TableLimits,
  onProgress: (rows: number) => void,
  encoding?: string,
): Promise<PartScan<LaterPartScan>> {
  return partScan(blobs, run, encoding, async (start) =>
    scanLaterPart(await blobs.openRead(run.source_key, { start: start.byte }), start, { limits, onProgress }),
  );
}
