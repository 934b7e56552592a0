import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import type { DuplicateRows, RunState } from '@app/domain';
import { halvesOf, joinProblemTallies, type ProblemTally } from '@app/run-source';
import { CpuWork, type CpuTaskOptions } from './cpu-work';
import { shareRowsOut } from './rows-shared-out';

/**
 * The review's count of the rows a mapping leaves with problems (countMappingProblems) on as
 * many CPU worker threads as there are: a big delimited file with a row index is counted in two
 * halves at once (the one that ends first taking the last rows of the other's: shareRowsOut), and
 * the parts' tallies (figures and page segments) are joined in order. A part that fails stops the others.
 */
@Injectable()
export class ProblemCounter {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cpu: CpuWork,
  ) {}

  /** Null when `signal` aborts it; `onProgress` hears the rows checked so far, both halves together. */
  async count(
    run: RunState,
    mapping: MappingRule,
    duplicates: DuplicateRows | null,
    { signal, onProgress }: CpuTaskOptions = {},
  ): Promise<ProblemTally | null> {
    const ranges = await halvesOf(this.blobs, run, this.cpu.threads);
    // Stopped in its thread when a newer mapping's count replaces it, so the thread carries on (task-stop.ts).
    if (ranges.length === 1) return this.cpu.run('countMappingProblems', { run, mapping, duplicates }, { signal, onProgress });
    const counted = await shareRowsOut(
      ranges,
      run.total_rows ?? 0,
      (range, both, onRows) =>
        this.cpu.run('countMappingProblems', { run, mapping, duplicates, range }, { signal: both, onProgress: onRows }),
      { signal, onRows: onProgress, label: `Run ${run.id}: review count` },
    ).catch((err: unknown) => {
      // Aborted: a newer mapping's count replaces this one (null, as one thread's count answers).
      if (signal?.aborted) return null;
      throw err;
    });
    if (!counted || counted.some((c) => c.result === null)) return null;
    return joinProblemTallies(counted.map(({ range, result }) => ({ range, tally: result! })));
  }
}
