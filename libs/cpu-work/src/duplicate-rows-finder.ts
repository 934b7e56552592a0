import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import type { MappingRule } from '@app/contracts';
import type { DuplicateRows, RunState } from '@app/domain';
import { stepTimer } from '@app/metrics';
import { halvesOf, storedDuplicateRows } from '@app/run-source';
import { CpuWork } from './cpu-work';
import { shareRowsOut } from './rows-shared-out';

/**
 * The duplicates pass (findDuplicateRows) on as many CPU worker threads as there are: for a big
 * delimited file with a row index, two threads read the first pass over halves of the file at
 * once (the one that ends first taking the last rows of the other's: shareRowsOut), and a third
 * task joins their numbers and goes on from there (its later passes, when
 * digest prefixes repeat, read the whole file on one thread). An answer already stored for the
 * run, mapping and fixes is used as it is, without reading the file; a pass that reads it is
 * timed (`transform_step_duration_seconds{step="duplicates"}`).
 */
@Injectable()
export class DuplicateRowsFinder {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly cpu: CpuWork,
  ) {}

  async find(run: RunState, mapping: MappingRule): Promise<DuplicateRows | null> {
    const stored = await storedDuplicateRows(this.blobs, run, mapping);
    if (stored) return stored;
    const done = stepTimer('duplicates');
    const found = await this.pass(run, mapping);
    done(run.total_rows ?? undefined);
    return found;
  }

  private async pass(run: RunState, mapping: MappingRule): Promise<DuplicateRows | null> {
    const ranges = await halvesOf(this.blobs, run, this.cpu.threads);
    if (ranges.length === 1) return this.cpu.run('findDuplicateRows', { run, mapping });
    const firstPasses = await shareRowsOut(
      ranges,
      run.total_rows ?? 0,
      // A part stopped because the other failed stops in its thread, which carries on (task-stop.ts).
      (range, signal) => this.cpu.run('duplicatesFirstPass', { run, mapping, range }, { signal }),
      { label: `Run ${run.id}: duplicates pass` },
    );
    if (firstPasses.some((p) => p.result === null)) return null;
    // The first passes' numbers (8 bytes per row and set) move to the thread that goes on: no copy stays here.
    return this.cpu.run('findDuplicateRows', { run, mapping, firstPasses: firstPasses.map((p) => p.result!) }, { moveInput: true });
  }
}
