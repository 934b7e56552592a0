/**
 * The memory settings `npm start` runs the service with, from package.json's config: V8's heap
 * cap and main-thread semi-spaces as node flags, glibc's malloc arenas and mmap threshold as
 * environment (docs/files.md, "Memory"). `npm start` lets the same variables override them
 * (HEAP_MB, SEMI_SPACE_MB, MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_); so does `env` here. The
 * benches, the tests' built services and the entry-point check start the service with these, so
 * what they measure is what `npm start` and the image run (test/deploy/memory-settings.spec.ts
 * checks those two against the same config).
 */
const path = require('node:path');

const { config } = require(path.join(__dirname, '..', 'package.json'));

/** `--max-old-space-size` and `--max-semi-space-size` as `npm start` passes them. */
function serviceNodeFlags(env = {}) {
  return [`--max-old-space-size=${env.HEAP_MB || config.heap_mb}`, `--max-semi-space-size=${env.SEMI_SPACE_MB || config.semi_space_mb}`];
}

/** glibc's malloc settings as `npm start` sets them. */
function serviceMallocEnv(env = {}) {
  return {
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX || config.malloc_arena_max,
    MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ || config.malloc_mmap_threshold,
  };
}

module.exports = { serviceNodeFlags, serviceMallocEnv };
