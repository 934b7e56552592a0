import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * A file-work thread collects its garbage once it has answered a task, before it waits for the next.
 *
 * An idle thread of the pool runs no collection until its next task, or until the pool ends it after 30 s idle. What
 * its last task left (a workbook's shared strings, up to 64 MiB outside the heap; a heap grown to its 64 MB) stayed
 * in the process's memory meanwhile, while the other thread did the next step: a workbook's output on the other
 * thread peaked at 321-325 MB (253-254 MB with a collection as the task ended). A full collection of a thread's heap
 * of garbage takes a few milliseconds.
 *
 * The collection waits for the answer to be sent (the pool then runs with `atomics: 'disabled'`, so that an idle
 * thread's event loop turns): run before it, it could not free the answer itself, which the task still held (the
 * scan's first 20 rows of 1 MB left 25 MB, 45 MB of heap, through a whole output on the other thread), and the
 * answer waited for the collection (a review's page for its thread's whole heap).
 */

/** Heap and outside-heap bytes in use past which a thread collects as its task ends; below, an ended task left little. */
const COLLECT_ABOVE_BYTES = 16 * 1024 * 1024;

/** Gives the threads started afterwards a `gc` function (V8 reads the flag as each isolate is made; the main thread's has none). */
export function letThreadsCollectWhenIdle(): void {
  setFlagsFromString('--expose-gc');
}

/** In a file-work thread: a full collection when the thread holds much (and may collect). Returns whether it ran. */
export function collectBeforeIdle(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  const { used_heap_size: used, external_memory: external } = getHeapStatistics();
  if (used + external <= COLLECT_ABOVE_BYTES) return false;
  gc();
  return true;
}

/**
 * When a file-work thread collects (collectBeforeIdle): once a task's answer has been sent (the pool posts it after
 * the task's promise settles, before the event loop's next turn), or, when the next task begins first (tasks queued
 * for the thread), as that one starts: the answer has been sent by then too, and the new task has made nothing yet.
 * Skipped in that case, a big task's leftovers (64 MiB of shared strings outside the heap) stayed through the next.
 */
export class CollectionBetweenTasks {
  /** A task ended and what it left has not been collected yet (a task that starts collects it, and clears this). */
  private due = false;

  taskStarts(): void {
    if (this.due) this.collect();
  }

  taskEnded(): void {
    this.due = true;
    setImmediate(() => {
      if (this.due) this.collect();
    });
  }

  /** `collectNow`: the collection itself (another in tests). */
  constructor(private readonly collectNow: () => unknown = collectBeforeIdle) {}

  private collect(): void {
    this.due = false;
    this.collectNow();
  }
}
