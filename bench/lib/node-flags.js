const path = require('node:path');

const { config } = require(path.join(__dirname, '..', '..', 'package.json'));

/** The memory flags `npm start` runs the service with (HEAP_MB and SEMI_SPACE_MB override package.json's config). */
function serviceNodeFlags() {
  return [
    `--max-old-space-size=${process.env.HEAP_MB || config.heap_mb}`,
    `--max-semi-space-size=${process.env.SEMI_SPACE_MB || config.semi_space_mb}`,
  ];
}

/** glibc's malloc settings `npm start` runs the service with (docs/files.md, "Memory"); the same variables override them. */
function serviceMallocEnv() {
  return {
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || config.malloc_arena_max,
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ || config.malloc_mmap_threshold,
  };
}

module.exports = { serviceNodeFlags, serviceMallocEnv };
