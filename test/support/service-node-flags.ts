import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The memory flags `npm start` runs the built service with (package.json's config), for tests that spawn it. */
export function serviceNodeFlags(): string[] {
  const { config } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    config: { heap_mb: string; semi_space_mb: string };
  };
  return [`--max-old-space-size=${config.heap_mb}`, `--max-semi-space-size=${config.semi_space_mb}`];
}
