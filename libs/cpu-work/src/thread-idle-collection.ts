import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * A file-work thread collects its garbage when a task ends, before it waits for the next.
 *
 * An idle thread of the pool waits in `Atomics.wait` (piscina), which stops its event loop: no collection runs there
 * until its next task, or until the pool ends it after 30 s idle. What its last task left (a workbook's shared
 * strings, up to 64 MiB outside the heap; a heap grown to its 64 MB) stayed in the process's memory meanwhile, while
 * the other thread did the next step: a workbook's output on the other thread peaked at 321-325 MB (253-254 MB with
 * this). A full collection of a thread's heap of garbage takes a few milliseconds.
 */

/** Heap and outside-heap bytes in use past which a thread collects as its task ends; below, an ended task left little. */
const COLLECT_ABOVE_BYTES = 16 * 1024 * 1024;

/** Gives the threads started afterwards a `gc` function (V8 reads the flag as each isolate is made; the main thread's has none). */
export function letThreadsCollectWhenIdle(): void {
  setFlagsFromString('--expose-gc');
}

/** In a file-work thread, as a task ends: a full collection when the thread holds much (and may collect). Returns whether it ran. */
export function collectBeforeIdle(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  const { used_heap_size: used, external_memory: external } = getHeapStatistics();
  if (used + external <= COLLECT_ABOVE_BYTES) return false;
  gc();
  return true;
}
