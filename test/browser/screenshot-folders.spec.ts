import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The tests write their files under the run's own folders: pictures beside the other specs' in `test-artifacts/`
 * (SCREENSHOT_DIR, git-ignored), everything else under os.tmpdir() (TMPDIR, one folder per run, removed when it ends).
 * A fixed folder of /tmp is shared by every checkout and every run on the machine, and is never cleaned.
 */
const ROOT = join(__dirname, '..');
const FIXED_TMP = /['"`]\/tmp(?:\/|['"`])/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('where the tests write', () => {
  it('no test names a fixed folder of /tmp', () => {
    const files = testFiles(ROOT);
    expect(files.length).toBeGreaterThan(20);
    const fixed = files.flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(FIXED_TMP)].map((m) => `${relative(ROOT, path)}: ${m[0]}`),
    );
    expect(fixed).toEqual([]);
  });
});
