import type { RunReadModel } from '@app/read-model';

export const RUN_PROJECTION = 'runs';

/**
 * Read-your-writes for the API: after appending at position P, wait until the run
 * projection has applied P. Polls the checkpoint, which works whether the projector
 * runs in this process or another one sharing the read model.
 */
export class ProjectionWaiter {
  constructor(private readonly readModel: RunReadModel) {}

  async waitFor(position: number, timeoutMs = 5000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    let delay = 1;
    while ((await this.readModel.checkpoint(RUN_PROJECTION)) < position) {
      if (Date.now() > until) return false;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 20);
    }
    return true;
  }
}
