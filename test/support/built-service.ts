import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN_TOKEN } from './service-harness';
import { spawnTracked } from './suite-resources';

const ROOT = join(__dirname, '..', '..');

/** How `npm start` runs the built service: its memory flags and glibc's malloc settings (package.json's config). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a script's module, as the scripts and benches use it
const { serviceNodeFlags, serviceMallocEnv } = require(join(ROOT, 'scripts', 'service-memory-settings.js')) as {
  serviceNodeFlags: () => string[];
  serviceMallocEnv: () => NodeJS.ProcessEnv;
};

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
