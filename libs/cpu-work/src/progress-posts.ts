/**
 * How often a task's progress (rows so far) crosses to the asking thread at most. A task reports
 * after every batch (500 rows of a 6-column file), and each post wakes the asking thread: in a
 * 1M-row output's profile the posts were 40-60 ms of each file-work thread's 1.3 s. The figure
 * is what a page or a log line shows; ten a second is more than either reads.
 */
export const PROGRESS_EVERY_MS = 100;

export interface ProgressPoster {
  /** Posts `rows` when the last post is PROGRESS_EVERY_MS old, else holds it back. */
  post(rows: number): void;
  /** Posts the figure last held back, if any: the task's last figure arrives before its answer. */
  flush(): void;
}

/** Posts on `port` at most every PROGRESS_EVERY_MS; `now` in milliseconds (performance.now). */
export function progressPoster(port: { postMessage(rows: number): void }, now: () => number = () => performance.now()): ProgressPoster {
  let postedAt = -Infinity;
  let held: number | null = null;
  return {
    post(rows) {
      const t = now();
      if (t - postedAt < PROGRESS_EVERY_MS) {
        held = rows;
        return;
      }
      postedAt = t;
      held = null;
      port.postMessage(rows);
    },
    flush() {
      if (held === null) return;
      port.postMessage(held);
      held = null;
    },
  };
}
