import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import type { RunState } from '@app/domain';
import {
  NotPlainDelimited,
  SourceProblem,
  byteAfterNextLineFeed,
  bytesBefore,
  guessedLinebreak,
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

/**
 * Where the later part of a run's source starts, with what the top of the file decides for
 * it (encoding, delimiter, line break); null when the file is scanned whole: not delimited,
 * small, in an encoding whose line feeds are not single bytes, a line break that does not end
 * in a line feed (CR alone), or no line feed near the middle.
 */
export async function planSourceSplit(blobs: BlobStore, run: RunState): Promise<LaterPartStart | null> {
  const format = tableFormatOf(run.filename ?? '');
  if (format?.format !== 'delimited') return null;
  const size = (await blobs.stat(run.source_key))?.size ?? 0;
  if (size < SPLIT_FROM_BYTES) return null;
  let sniffed;
  try {
    sniffed = await sniffDelimited(await blobs.openRead(run.source_key), format.delimiter);
  } catch (err) {
    if (err instanceof SourceProblem) return null; // the whole scan names it
    throw err;
  }
  sniffed.replay.destroy();
  const { head, encoding, delimiter } = sniffed;
  if (!splitsOnLineFeedBytes(encoding)) return null;
  const sample = new TextDecoder(encoding === 'utf-8' ? 'utf-8' : encoding).decode(head, { stream: true });
  const linebreak = guessedLinebreak(sample, delimiter);
  if (!linebreak.endsWith('\n')) return null;
  const middle = Math.floor(size / 2);
  const byte = await byteAfterNextLineFeed(await blobs.openRead(run.source_key, { start: middle }), middle, LOOK_FOR_LINE_FEED_BYTES);
  return byte === null || byte >= size ? null : { byte, encoding, delimiter, linebreak };
}

/** A part's scan, or 'not plain' when the file must be scanned whole (its quoting, a limit crossed, a bad byte: the whole read decides). */
type PartOutcome<T> = T | 'not plain';

async function orNotPlain<T>(scan: () => Promise<T>): Promise<PartOutcome<T>> {
  try {
    return await scan();
  } catch (err) {
    if (err instanceof NotPlainDelimited || err instanceof SourceProblem) return 'not plain';
    throw err;
  }
}

/** The scan of the source's bytes before `start.byte`. */
export async function scanSourceFirstPart(
  blobs: BlobStore,
  run: RunState,
  start: LaterPartStart,
  limits: TableLimits,
  onProgress: (rows: number) => void,
): Promise<PartOutcome<FirstPartScan>> {
  const input = Readable.from(bytesBefore(await blobs.openRead(run.source_key), start.byte));
  return orNotPlain(() => scanFirstPart(input, start.delimiter, { limits, headRows: HEADER_SAMPLE_ROWS, onProgress }));
}

/** The scan of the source's bytes from `start.byte` to its end. */
export async function scanSourceLaterPart(
  blobs: BlobStore,
  run: RunState,
  start: LaterPartStart,
  limits: TableLimits,
  onProgress: (rows: number) => void,
): Promise<PartOutcome<LaterPartScan>> {
  const input = await blobs.openRead(run.source_key, { start: start.byte });
  return orNotPlain(() => scanLaterPart(input, start, { limits, onProgress }));
}
