import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { CpuWork, shareRowsOut } from '@app/cpu-work';
import type { DuplicateRows, RunState } from '@app/domain';
import { halvesOf, joinOutputParts, type OutputWritten } from '@app/run-source';
import { outputByteLimit } from './output-limit';

/**
 * Writes a run's output on as many CPU worker threads as there are (two at most): a big
 * delimited file with a row index is written in two halves at once, each thread starting
 * its read at the index entry before its half, and the parts are joined in order into the
 * output, byte for byte what one thread writes. A thread that ends its half first takes the
 * last rows of the other's as a part of its own (shareRowsOut). Anything else is written by one thread.
 * Past its limit (output-limit.ts) an output is refused with BlobTooLargeError and nothing of it is kept:
 * each part is refused once it alone passes the whole output's limit (so the parts on disk stay under the
 * limit times their number), and the join once the whole does.
 */
@Injectable()
export class OutputWriter {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cpu: CpuWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `duplicates`: the duplicates pass's answer, when the schema asks for unique values (it checks rows of any part alike). */
  async write(run: RunState, key: string, onProgress: (rows: number) => unknown, duplicates: DuplicateRows | null): Promise<OutputWritten> {
    const maxBytes = outputByteLimit(run, (await this.blobs.stat(run.rows_key))?.size ?? null, this.config);
    const ranges = await halvesOf(this.blobs, run, this.cpu.threads);
    if (ranges.length === 1) return this.cpu.run('writeRunOutput', { run, key, duplicates, maxBytes }, { onProgress });
    // Each part's blob, by its first row.
    const partKeys = new Map<number, string>();
    try {
      const parts = await shareRowsOut(
        ranges,
        run.total_rows ?? 0,
        (range, signal, onRows) => {
          const partKey = `${key}.part-${partKeys.size + 1}`;
          partKeys.set(range.fromRow, partKey);
          // Told to stop when another part fails (not ended with its thread): its temporary file is then removed.
          return this.cpu.run('writeOutputPart', { run, key: partKey, range, duplicates, maxBytes }, { signal, onProgress: onRows });
        },
        { onRows: onProgress, label: `Run ${run.id}: output` },
      );
      await joinOutputParts(
        this.blobs,
        run,
        key,
        parts.map((p) => partKeys.get(p.range.fromRow)!),
        maxBytes,
      );
      const sum = (figure: keyof OutputWritten) => parts.reduce((n, p) => n + p.result[figure], 0);
      return { rows: sum('rows'), rowsWithProblems: sum('rowsWithProblems'), rowsExcluded: sum('rowsExcluded') };
    } finally {
      // The parts are scratch: removed whether the output was written or not (a retry writes them again).
      await Promise.all([...partKeys.values()].map((k) => this.blobs.delete(k).catch(() => undefined)));
    }
  }
}
