import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { CpuWork } from '@app/cpu-work';
import type { DuplicateRows, RunState } from '@app/domain';
import { halvesOf, joinOutputParts, type OutputWritten } from '@app/run-source';

/**
 * Writes a run's output on as many CPU worker threads as there are (two at most): a big
 * delimited file with a row index is written in two halves at once, each thread starting
 * its read at the index entry before its half, and the halves are joined in order into the
 * output, byte for byte what one thread writes. Anything else is written by one thread.
 */
@Injectable()
export class OutputWriter {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cpu: CpuWork,
  ) {}

  /** `duplicates`: the duplicates pass's answer, when the schema asks for unique values (it checks rows of either half alike). */
  async write(run: RunState, key: string, onProgress: (rows: number) => unknown, duplicates: DuplicateRows | null): Promise<OutputWritten> {
    const ranges = await halvesOf(this.blobs, run, this.cpu.threads);
    if (ranges.length === 1) return this.cpu.run('writeRunOutput', { run, key, duplicates }, { onProgress });
    const partKeys = ranges.map((_, i) => `${key}.part-${i + 1}`);
    const read = ranges.map(() => 0);
    try {
      const parts = await Promise.all(
        ranges.map((range, i) =>
          this.cpu.run(
            'writeOutputPart',
            { run, key: partKeys[i], range, duplicates },
            {
              onProgress: (rows) => {
                read[i] = rows;
                return onProgress(read.reduce((a, b) => a + b, 0));
              },
            },
          ),
        ),
      );
      await joinOutputParts(this.blobs, run, key, partKeys);
      return {
        rows: parts.reduce((n, p) => n + p.rows, 0),
        rowsWithProblems: parts.reduce((n, p) => n + p.rowsWithProblems, 0),
        rowsExcluded: parts.reduce((n, p) => n + p.rowsExcluded, 0),
      };
    } finally {
      // The parts are scratch: removed whether the output was written or not (a retry writes them again).
      await Promise.all(partKeys.map((k) => this.blobs.delete(k).catch(() => undefined)));
    }
  }
}
