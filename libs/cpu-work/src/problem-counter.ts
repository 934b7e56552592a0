import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import type { DuplicateRows, RunState } from '@app/domain';
import { halvesOf, joinProblemTallies, type ProblemTally } from '@app/run-source';
import { allOrNone } from './all-or-none';
import { CpuWork, type CpuTaskOptions } from './cpu-work';

/**
 * The review's count of the rows a mapping leaves with problems (countMappingProblems) on as
 * many CPU worker threads as there are: a big delimited file with a row index is counted in two
 * halves at once, and the halves' tallies (figures and page segments) are joined in order. A
 * half that fails stops the other.
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
    if (ranges.length === 1) return this.cpu.run('countMappingProblems', { run, mapping, duplicates }, { signal, onProgress });
    const checked = ranges.map(() => 0);
    const tallies = await allOrNone(
      ranges,
      (range, both, i) =>
        this.cpu.run(
          'countMappingProblems',
          { run, mapping, duplicates, range },
          {
            signal: both,
            onProgress: (rows) => {
              checked[i] = rows;
              return onProgress?.(checked.reduce((a, b) => a + b, 0));
            },
          },
        ),
      signal,
    );
    if (tallies.some((t) => t === null)) return null;
    return joinProblemTallies(ranges.map((range, i) => ({ range, tally: tallies[i]! })));
  }
}
