import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * scripts/check-lockfile.js (the first step of `npm run lint`): `npm ci` must accept the
 * committed lock file, and the check must fail when the lock file drifts from package.json,
 * as it did when npm had pruned the platform bindings of optional packages.
 */
const root = join(__dirname, '..', '..');
const check = (dir?: string) =>
  spawnSync(process.execPath, [join(root, 'scripts/check-lockfile.js'), ...(dir ? [dir] : [])], { encoding: 'utf8', timeout: 120_000 });

describe('lock file check', () => {
  it('the committed package-lock.json is in sync with package.json', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  describe('on a drifted copy', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'lockfile-'));
      copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('fails when the lock file lost an optional platform binding', () => {
      const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
      const binding = Object.keys(lock.packages).find((p) => /node_modules\/@oxc-parser\/binding-/.test(p));
      expect(binding).toBeDefined();
      delete lock.packages[binding!];
      writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`Missing: ${binding!.replace(/^.*node_modules\//, '')}@`);
    });

    it('fails when package.json asks for a version the lock file does not have', () => {
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
      pkg.dependencies['exponential-backoff'] = '^2.0.0';
      writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
      copyFileSync(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('not in sync');
    });
  });
});
