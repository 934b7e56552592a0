import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { CpuWork } from '@app/cpu-work';
import type { DuplicateRows, RunState } from '@app/domain';
import { cutAfter, halvesOf, joinOutputParts, newRangeEnd, rangeNow, type OutputWritten, type RangeEnd } from '@app/run-source';
import { whereToCut } from './where-to-cut';

/** One part of an output, written by one thread from `fromRow` to `toRow` (null: to the file's end). */
interface Part {
  key: string;
  fromRow: number;
  toRow: number | null;
  end: RangeEnd;
  startedAt: number;
  written: OutputWritten | null;
}

/**
 * Writes a run's output on as many CPU worker threads as there are (two at most): a big
 * delimited file with a row index is written in two halves at once, each thread starting
 * its read at the index entry before its half, and the parts are joined in order into the
 * output, byte for byte what one thread writes. Anything else is written by one thread.
 *
 * Two halves seldom end together (one thread is slowed more by the API or the other work on the
 * machine): when a thread finishes while a part still has enough rows left, that part is cut
 * after half of what is left and the free thread writes the rest as a part of its own
 * (where-to-cut.ts; the two threads agree on the cut through shared memory, range-end.ts).
 */
@Injectable()
export class OutputWriter {
  private readonly logger = new Logger(OutputWriter.name);

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cpu: CpuWork,
  ) {}

  /** `duplicates`: the duplicates pass's answer, when the schema asks for unique values (it checks rows of any part alike). */
  async write(run: RunState, key: string, onProgress: (rows: number) => unknown, duplicates: DuplicateRows | null): Promise<OutputWritten> {
    const ranges = await halvesOf(this.blobs, run, this.cpu.threads);
    if (ranges.length === 1) return this.cpu.run('writeRunOutput', { run, key, duplicates }, { onProgress });
    const parts: Part[] = [];
    const read = new Map<Part, number>();
    const failed = new AbortController();
    let failure: { error: unknown } | null = null;

    const start = (fromRow: number, toRow: number | null): Promise<void> => {
      const part: Part = {
        key: `${key}.part-${parts.length + 1}`,
        fromRow,
        toRow,
        end: newRangeEnd(fromRow, toRow),
        startedAt: Date.now(),
        written: null,
      };
      parts.push(part);
      const progress = (rows: number) => {
        read.set(part, rows);
        let sum = 0;
        for (const n of read.values()) sum += n;
        return onProgress(sum);
      };
      return this.cpu
        .run(
          'writeOutputPart',
          { run, key: part.key, range: { fromRow, toRow, end: part.end }, duplicates },
          { onProgress: progress, signal: failed.signal },
        )
        .then(
          (written) => {
            part.written = written;
            this.logger.debug(
              `Run ${run.id}: ${part.key} (rows ${fromRow} to ${part.toRow ?? 'the end'}) written in ${Date.now() - part.startedAt} ms`,
            );
            // This part's thread is free: it takes the second half of what another part has left, if that is worth it.
            if (!failure) return this.shareOut(run, parts, start);
          },
          (error: unknown) => {
            failure ??= { error };
            failed.abort();
          },
        );
    };

    try {
      await Promise.all(ranges.map((range) => start(range.fromRow, range.toRow)));
      if (failure) throw (failure as { error: unknown }).error;
      const inOrder = [...parts].sort((a, b) => a.fromRow - b.fromRow);
      await joinOutputParts(
        this.blobs,
        run,
        key,
        inOrder.map((p) => p.key),
      );
      const sum = (figure: keyof OutputWritten) => parts.reduce((n, p) => n + p.written![figure], 0);
      return { rows: sum('rows'), rowsWithProblems: sum('rowsWithProblems'), rowsExcluded: sum('rowsExcluded') };
    } finally {
      // The parts are scratch: removed whether the output was written or not (a retry writes them again).
      await Promise.all(parts.map((p) => this.blobs.delete(p.key).catch(() => undefined)));
    }
  }

  /** Cuts the part with the most rows left, when that is worth it, and starts its rest; resolves when that rest is written. */
  private shareOut(
    run: RunState,
    parts: Part[],
    start: (fromRow: number, toRow: number | null) => Promise<void>,
  ): Promise<void> | undefined {
    const lastRowOf = (now: { lastRow: number | null }) => now.lastRow ?? run.total_rows ?? 0;
    let most: Part | null = null;
    let left = 0;
    for (const part of parts) {
      if (part.written) continue;
      const now = rangeNow(part.end);
      if (lastRowOf(now) - now.claimed > left) [most, left] = [part, lastRowOf(now) - now.claimed];
    }
    if (!most) return;
    const part = most;
    const seconds = (Date.now() - part.startedAt) / 1000;
    const cut = cutAfter(part.end, (now) => whereToCut({ fromRow: part.fromRow, claimed: now.claimed, lastRow: lastRowOf(now), seconds }));
    if (cut === null) return;
    const rest = part.toRow;
    part.toRow = cut;
    this.logger.debug(`Run ${run.id}: the output's rows after ${cut} move from ${part.key} to a free thread`);
    return start(cut + 1, rest);
  }
}
