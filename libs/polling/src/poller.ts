import { Logger } from '@nestjs/common';

/**
 * Runs a task every `everyMs`, never overlapping itself: the next run is armed when the
 * previous one ended, however long it took. `stop()` waits for the run in progress, and a
 * task that loops can check `stopped` to end early. (The sweeper, the upload watcher and
 * the webhook scheduler each poll the read model this way.)
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private halted = false;
  private readonly logger: Logger;

  constructor(
    name: string,
    private readonly everyMs: number,
    private readonly task: () => Promise<void>,
  ) {
    this.logger = new Logger(name);
  }

  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    if (this.halted) return;
    this.timer = setTimeout(() => {
      this.running = this.task()
        .catch((err: Error) => this.logger.error(`Poll failed: ${err.message}`))
        .finally(() => this.start());
    }, this.everyMs);
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
