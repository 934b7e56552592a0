import { readdirSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The files under `dir` this process holds open, read from /proc/self/fd. A release is checked on
 * these, not on the count of all descriptors: other handles (an earlier test's streams, Jest's own
 * files) finish closing while a test runs and moved the bare count either way.
 */
export function openFilesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) files.push(target);
    } catch {
      // The descriptor closed between the listing and the read (readdir's own is one of them).
    }
  }
  return files.sort();
}

/** `openFilesUnder(dir)` once it holds `expected` (a close takes some turns of the loop, seconds on a loaded machine), or as it is after 10 s. */
export async function openFilesSettleAt(dir: string, expected: string[]): Promise<string[]> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
    const now = openFilesUnder(dir);
    if (now.join('\n') === expected.join('\n')) return now;
  }
  return openFilesUnder(dir);
}
