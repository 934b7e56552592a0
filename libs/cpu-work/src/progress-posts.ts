/**
 * How often a task's progress (rows so far) crosses to the asking thread at most. A task reports
 * after every batch (500 rows of a 6-column file), and each post wakes the asking thread: in a
 * 1M-row output's profile the posts were 40-60 ms of each file-work thread's 1.3 s. The figure
 * is what a page or a log line shows; ten a second is more than either reads.
 */
export const PROGRESS_EVERY_MS = 100;

export interface ProgressPoster {
  /**
   * Posts `rows` when the last post is PROGRESS_EVERY_MS old, else holds it back until then: a
   * figure held back is posted when its interval ends even if no other comes (a task that went
   * quiet, waiting on its store, still shows how far it got).
   */
  post(rows: number): void;
  /** Posts the figure last held back, if any, now: the task's last figure arrives before its answer. */
  flush(): void;
  /** Drops what is held back (the task failed, or its port is about to close). */
  stop(): void;
}

/** Posts on `port` at most every PROGRESS_EVERY_MS; `now` in milliseconds (performance.now). */
export function progressPoster(port: { postMessage(rows: number): void }, now: () => number = () => performance.now()): ProgressPoster {
  let postedAt = -Infinity;
  let held: number | null = null;
  let later: ReturnType<typeof setTimeout> | null = null;
  const send = (rows: number) => {
    postedAt = now();
    held = null;
    port.postMessage(rows);
  };
  const cancel = () => {
    if (later !== null) clearTimeout(later);
    later = null;
  };
  return {
    post(rows) {
      const since = now() - postedAt;
      if (since >= PROGRESS_EVERY_MS) {
        cancel();
        send(rows);
        return;
      }
      held = rows;
      later ??= setTimeout(() => {
        later = null;
        if (held !== null) send(held);
      }, PROGRESS_EVERY_MS - since);
      // A figure never keeps a thread's event loop alive.
      later.unref?.();
    },
    flush() {
      cancel();
      if (held !== null) send(held);
    },
    stop() {
      cancel();
      held = null;
    },
  };
}
