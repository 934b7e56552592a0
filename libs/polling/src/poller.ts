import { Logger } from '@nestjs/common';
import { type LoopMonitor, loopHealth } from './loop-health';

/**
 * Runs a task every `everyMs`, never overlapping itself: the next run is armed when the
 * previous one ended, however long it took. `stop()` waits for the run in progress, and a
 * task that loops can check `stopped` to end early. (The sweeper, the upload watcher and
 * the webhook scheduler each poll the read model this way.)
 *
 * A task that fails never stops the poller: the next run comes after a back-off that doubles
 * with each failure in a row (from `everyMs` up to `maxBackoffMs`, with jitter), each failure
 * counts in `transform_loop_restarts_total{loop="poller:<name>"}`, and the poller is down for
 * readiness (`loops`) until a run succeeds again.
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private halted = false;
  private failures = 0;
  private readonly logger: Logger;
  private readonly monitor: LoopMonitor;

  constructor(
    name: string,
    private readonly everyMs: number,
    private readonly task: () => Promise<void>,
    private readonly maxBackoffMs = Math.max(everyMs, 60_000),
  ) {
    this.logger = new Logger(name);
    this.monitor = loopHealth.monitor(`poller:${name}`);
  }

  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    if (this.halted) return;
    this.timer = setTimeout(() => {
      this.running = this.task()
        .then(
          () => {
            if (this.failures > 0) this.monitor.recovered();
            this.failures = 0;
          },
          (err: Error) => {
            this.failures++;
            this.monitor.failed(err);
            this.logger.error(`Poll failed (${this.failures} in a row; next in about ${this.nextDelayMs()} ms): ${err.message}`);
          },
        )
        .finally(() => this.start());
    }, this.nextDelayMs());
  }

  /** `everyMs`, or after failures in a row a back-off doubling up to `maxBackoffMs` (full jitter above `everyMs`). */
  private nextDelayMs(): number {
    if (this.failures === 0) return this.everyMs;
    const ceiling = Math.min(this.maxBackoffMs, this.everyMs * 2 ** Math.min(this.failures, 30));
    return Math.round(this.everyMs + Math.random() * Math.max(0, ceiling - this.everyMs));
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.monitor.ended();
  }
}
