import { setFlagsFromString } from 'node:v8';

/**
 * The main thread runs with heap flags sized for it (`--max-old-space-size`, HEAP_MB, and
 * `--max-semi-space-size`, SEMI_SPACE_MB, set by `npm start` and the image). V8 also applies a
 * command-line flag to every isolate created after it, and a flag wins over a thread's own
 * `resourceLimits`:
 *
 * - the young generation: the main thread serves requests whose garbage is small and short-lived,
 *   and V8's default grows it to 32 MB of resident memory during start-up that never comes back.
 *   The file-work threads would then collect their per-row garbage in 2 MB instead of
 *   CPU_WORKER_YOUNG_MB, and spend half their time in garbage collection;
 * - the old generation: each file-work thread could grow to HEAP_MB (112) instead of
 *   CPU_WORKER_HEAP_MB, so two threads and the main heap together could pass the process's
 *   256 MB, where a thread's heap held 30-33 MB at the benches' peaks.
 *
 * Clearing both flags once the main isolate exists lets each thread size its heap from its own
 * resource limits; the main thread's stays as it was created.
 */
export function letThreadsSizeTheirHeaps(): void {
  setFlagsFromString('--max-semi-space-size=0');
  setFlagsFromString('--max-old-space-size=0');
}
