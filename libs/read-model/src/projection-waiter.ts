import { Logger } from '@nestjs/common';
import type { RunReadModel } from './read-model.port';

export const RUN_PROJECTION = 'runs';

/**
 * Read-your-writes for the API: after a command leaves a run at stream revision R, wait
 * until the run's document shows R. Asking the document rather than a global checkpoint
 * works whether the projector runs here or in another process, and whatever order a
 * partitioned bus delivers other runs' events in.
 */
export class ProjectionWaiter {
  private readonly logger = new Logger(ProjectionWaiter.name);

  constructor(private readonly readModel: RunReadModel) {}

  /**
   * True once the run's document shows `revision`. After `timeoutMs` it gives up, false: the
   * write is recorded either way and the caller answers it; a projection that far behind is
   * logged, since lists and GETs show the run as it was until it catches up.
   */
  async waitFor(runId: string, revision: number, timeoutMs = 5000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    let delay = 1;
    while (((await this.readModel.getRun(runId))?.revision ?? -1) < revision) {
      if (Date.now() > until) {
        this.logger.warn(`Run ${runId}: the projection did not reach revision ${revision} within ${timeoutMs} ms; answered without it`);
        return false;
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 20);
    }
    return true;
  }
}
