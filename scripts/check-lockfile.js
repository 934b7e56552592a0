#!/usr/bin/env node
/**
 * Fails when package-lock.json and package.json have drifted apart, i.e. when `npm ci`
 * (what deploy/Dockerfile and a clean clone run) would refuse to install. `npm install`
 * quietly rewrites the lock file, so without this check nobody notices until an image build.
 *
 * It asks npm itself: `npm ci --dry-run --ignore-scripts` on a copy of the two files in a
 * temporary directory (so the installed node_modules neither helps nor is touched). npm
 * compares the lock file with the tree package.json asks for, platform-specific optional
 * packages included, which a hand-written comparison of versions would miss.
 *
 * `node scripts/check-lockfile.js [dir]` (default: the repository); part of `npm run lint`.
 */
const { spawnSync } = require('node:child_process');
const { copyFileSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const dir = resolve(process.argv[2] ?? join(__dirname, '..'));
const work = mkdtempSync(join(tmpdir(), 'lockfile-check-'));
try {
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(dir, file), join(work, file));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: work,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    const lines = `${result.stdout}\n${result.stderr}`.split('\n').filter((l) => /Missing:|Invalid:|in sync/.test(l));
    console.error('package-lock.json is not in sync with package.json: `npm ci` (the image build, a clean clone) would fail.');
    console.error(lines.slice(0, 20).join('\n') || result.stderr || result.error?.message);
    console.error('Run `npm install` and commit package-lock.json (check the platform bindings of optional packages are kept).');
    process.exit(1);
  }
  console.log('package-lock.json is in sync with package.json (npm ci --dry-run).');
} finally {
  rmSync(work, { recursive: true, force: true });
}
