import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN } from './service-harness';
import { spawnTracked } from './suite-resources';

const ROOT = join(__dirname, '..', '..');

/** How `npm start` runs the built service: its memory flags and glibc's malloc settings (package.json's config). */
const { config } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  config: { heap_mb: string; semi_space_mb: string; malloc_arena_max: string; malloc_mmap_threshold: string };
};
const serviceNodeFlags = (): string[] => [`--max-old-space-size=${config.heap_mb}`, `--max-semi-space-size=${config.semi_space_mb}`];
const serviceMallocEnv = (): NodeJS.ProcessEnv => ({
  MALLOC_ARENA_MAX: config.malloc_arena_max,
  MALLOC_MMAP_THRESHOLD_: config.malloc_mmap_threshold,
});

export interface BuiltAppOptions {
  port: number;
  dataDir: string;
  publicBaseUrl: string;
  /** Settings of this test beyond the common ones. */
  env?: NodeJS.ProcessEnv;
  /** The environment the app inherits (default: this process's). */
  inherited?: NodeJS.ProcessEnv;
}

/**
 * One built app (`dist/apps/<app>`) as its own process, started as `npm start` starts it (its
 * memory flags and malloc settings) on loopback with the admin token, an event-store poll of 50 ms and what the
 * test adds; stopped with the test file (spawnTracked).
 */
export function spawnBuiltApp(app: string, options: BuiltAppOptions): ChildProcess {
  return spawnTracked(`${app} app`, process.execPath, [...serviceNodeFlags(), join(ROOT, `dist/apps/${app}/src/main.js`)], {
    env: {
      ...(options.inherited ?? process.env),
      ...serviceMallocEnv(),
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: options.publicBaseUrl,
      EVENT_STORE_POLL_MS: '50',
      ...options.env,
    },
    stdio: 'ignore',
  });
}
