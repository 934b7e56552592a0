import { Injectable, Logger } from '@nestjs/common';
import { STAGES, runError, type RunState } from '@app/domain';
import { CpuWork } from '@app/infrastructure';
import type { IngestionOutcome } from '@app/run-source';

/**
 * Reads an uploaded CSV/TSV/TXT/XLSX (run-source's inspectStructuredFile) in a worker
 * thread: its headers and row count, reporting progress as it goes.
 */
@Injectable()
export class StructuredFileReader {
  private readonly logger = new Logger(StructuredFileReader.name);

  constructor(private readonly cpu: CpuWork) {}

  async read(run: RunState, onProgress: (rows: number) => Promise<void>): Promise<IngestionOutcome> {
    // Progress is recorded in order and awaited before the outcome, so no progress event lands after it.
    let recorded = Promise.resolve();
    try {
      return await this.cpu.run(
        'inspectStructuredFile',
        { run },
        {
          onProgress: (rows) => {
            recorded = recorded.then(() => onProgress(rows));
          },
        },
      );
    } catch (err) {
      this.logger.error(`Run ${run.id}: the stored source could not be read: ${(err as Error).message}`);
      return { failed: runError('storageFailed', STAGES.ingestion) };
    } finally {
      await recorded.catch((err: Error) => this.logger.warn(`Run ${run.id}: progress not recorded: ${err.message}`));
    }
  }
}
