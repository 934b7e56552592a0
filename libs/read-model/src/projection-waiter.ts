import type { RunReadModel } from './read-model.port';

export const RUN_PROJECTION = 'runs';

/**
 * Read-your-writes for the API: after a command leaves a run at stream revision R, wait
 * until the run's document shows R. Asking the document rather than a global checkpoint
 * works whether the projector runs here or in another process, and whatever order a
 * partitioned bus delivers other runs' events in.
 */
export class ProjectionWaiter {
  constructor(private readonly readModel: RunReadModel) {}

  async waitFor(runId: string, revision: number, timeoutMs = 5000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    let delay = 1;
    while (((await this.readModel.getRun(runId))?.revision ?? -1) < revision) {
      if (Date.now() > until) return false;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 20);
    }
    return true;
  }
}
