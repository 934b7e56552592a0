import { Injectable, Logger } from '@nestjs/common';
import { STAGES, runError, type RunState } from '@app/domain';
import { isThreadOutOfMemory, SourceInspector } from '@app/cpu-work';
import type { IngestionOutcome } from '@app/run-source';

/**
 * Reads an uploaded CSV/TSV/TXT/XLSX (run-source's inspectStructuredFile) in worker threads
 * (a big delimited file in two parts at once: SourceInspector): its headers and row count,
 * reporting progress as it goes.
 */
@Injectable()
export class StructuredFileReader {
  private readonly logger = new Logger(StructuredFileReader.name);

  constructor(private readonly inspector: SourceInspector) {}

  async read(run: RunState, onProgress: (rows: number) => Promise<void>): Promise<IngestionOutcome> {
    try {
      // CpuWork records progress in order and settles after the last, so none lands after the outcome.
      return await this.inspector.inspect(run, { onProgress });
    } catch (err) {
      if (isThreadOutOfMemory(err)) {
        this.logger.error(`Run ${run.id}: reading the source ended its file-work thread at its heap's limit (CPU_WORKER_HEAP_MB)`);
        return { failed: runError('outOfMemory', STAGES.ingestion) };
      }
      this.logger.error(`Run ${run.id}: the stored source could not be read: ${(err as Error).message}`);
      return { failed: runError('storageFailed', STAGES.ingestion) };
    }
  }
}
