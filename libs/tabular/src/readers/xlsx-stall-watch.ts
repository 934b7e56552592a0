import { SourceProblem } from './source-problem';

export const stalled = () => new SourceProblem('unreadableFile', 'The workbook is damaged: its contents could not be read.');

/**
 * The no-progress watchdog of an XLSX read. Progress is bytes: every chunk pulled from the
 * source while it is spooled and every byte read from the package file (compressed, as
 * the parts stream out of it) calls `progress()`. A step fails as damaged only when no
 * byte at all was read for `stallMs` while it was awaited, so a large or slow read that
 * still advances is never called damaged, while a source or package that stops
 * delivering is, in bounded time.
 */
export class StallWatch {
  private last = Date.now();

  constructor(readonly stallMs: number) {}

  progress(): void {
    this.last = Date.now();
  }

  /**
   * Awaits `step` under the watchdog. The clock restarts at each step: time the consumer
   * spends with a batch, between steps, is not the package's doing.
   */
  async step<T>(step: Promise<T>): Promise<T> {
    this.progress();
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      const check = () => {
        const idle = Date.now() - this.last;
        if (idle >= this.stallMs) reject(stalled());
        else timer = setTimeout(check, this.stallMs - idle);
      };
      timer = setTimeout(check, this.stallMs);
    });
    // When the watchdog wins, the abandoned step may still fail later (its stream is destroyed): expected, not unhandled.
    step.catch(() => undefined);
    try {
      return await Promise.race([step, watchdog]);
    } finally {
      clearTimeout(timer);
    }
  }
}
