import { setFlagsFromString } from 'node:v8';

/**
 * V8 optimises a hot function on its helper threads (concurrent recompilation), and those
 * threads serve every isolate of the process at normal priority. The file-work threads are in
 * the idle class so that the API's thread always has a core first (thread-priority.ts), yet the
 * compiles of their code ran beside it at normal priority: in the first second of an output,
 * TurboFan was a fifth of the process's CPU and a polling GET's p99 doubled (docs/decisions.md,
 * "The API's p99 during an output is the machine's"). V8 decides when an isolate is created
 * whether it compiles concurrently, from the flag as it is then: cleared once the main isolate
 * exists, the file-work threads optimise their code on their own (idle-class) threads, while
 * the main thread keeps compiling on the helpers and never waits for a compile.
 */
export function letThreadsOptimiseOnTheirOwnThread(): void {
  setFlagsFromString('--no-concurrent-recompilation');
}
