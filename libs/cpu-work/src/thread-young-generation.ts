import { setFlagsFromString } from 'node:v8';

/**
 * The main thread runs with a small young generation (`--max-semi-space-size`, SEMI_SPACE_MB,
 * set by `npm start` and the image): it serves requests whose garbage is small and short-lived,
 * and V8's default grows it to 32 MB of resident memory during start-up that never comes back.
 * V8 also applies that command-line flag to every isolate created after it, and a flag wins over
 * a thread's own `resourceLimits.maxYoungGenerationSizeMb`: the file-work threads would then
 * collect their per-row garbage in 2 MB instead of CPU_WORKER_YOUNG_MB, and spend half their
 * time in garbage collection. Clearing the flag once the main isolate exists lets each thread
 * size its young generation from its own resource limits; the main thread's stays as it was
 * created.
 */
export function letThreadsSizeTheirYoungGeneration(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
