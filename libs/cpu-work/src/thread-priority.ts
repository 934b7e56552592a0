import { execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';

/** The nice value a file-work thread runs at when the idle class cannot be had. */
const NICE = 10;

/**
 * Lowers the calling thread to the lowest CPU priority the system gives without privileges, so
 * the file work takes only CPU nothing else of the process wants: first a nice value (on Linux it
 * applies to the calling thread alone), then, where util-linux's `chrt` is found, Linux's
 * SCHED_IDLE class. A thread of the idle class is preempted at once when a normal one wakes up,
 * where a thread at nice 10 keeps the core until the scheduler's slice ends: with the output's two
 * threads at nice 10, the API's thread waited 23% of an output for a core (bench/README.md).
 * On a single CPU the thread stays at nice 10: an idle-class thread would then advance only while
 * the API is quiet, and a steadily polled service would never finish an output.
 * `onIdleClass` hears whether the idle class was set (false: the thread stays at its nice value).
 */
export function yieldCpuToOtherThreads(onIdleClass: (set: boolean, why?: string) => void = () => undefined): void {
  try {
    setPriority(NICE);
  } catch {
    // Not permitted or not supported here: the nice value stays as it was.
  }
  if (availableParallelism() < 2) return onIdleClass(false, 'a single CPU');
  let tid: string;
  try {
    // "<pid>/task/<tid>": Node has no gettid().
    tid = readlinkSync('/proc/thread-self').split('/').pop()!;
  } catch {
    return onIdleClass(false, 'no /proc/thread-self (not Linux)');
  }
  execFile('chrt', ['--idle', '--pid', '0', tid], (err) => onIdleClass(!err, err?.message));
}
