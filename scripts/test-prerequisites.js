#!/usr/bin/env node
/**
 * First step of `npm test`: makes sure what the tests need beyond npm packages is on the
 * machine. The review page's browser tests drive Debian's Chromium (never a browser that
 * Playwright downloads) and need fonts for every locale's script (Arabic included).
 *
 * - Chromium at CHROMIUM_PATH (default /usr/bin/chromium) and the Noto fonts: nothing to do.
 * - Missing, on Debian/Ubuntu as root or with passwordless sudo: installed with apt-get.
 * - Missing otherwise: one line saying what to install, and exit code 1 at once.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function debianPackageInstalled(name) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function missingPackages() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push('chromium');
  // Fonts are only checked where dpkg can tell; elsewhere the system's own fonts are used.
  if (hasCommand('dpkg-query') && !debianPackageInstalled('fonts-noto-core')) missing.push('fonts-noto-core');
  return missing;
}

/** How to run apt-get here: directly as root, through passwordless sudo, or not at all. */
function aptRunner() {
  if (!hasCommand('apt-get')) return null;
  if (process.getuid && process.getuid() === 0) return [];
  if (hasCommand('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return null;
}

function aptGet(prefix, args) {
  const [command, ...rest] = [...prefix, 'apt-get', ...args];
  execFileSync(command, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

const missing = missingPackages();
if (missing.length === 0) process.exit(0);

const runner = aptRunner();
const custom = process.env.CHROMIUM_PATH && missing.includes('chromium');
if (runner === null || custom) {
  const what = custom ? `Chromium at CHROMIUM_PATH=${CHROMIUM}` : `the Debian packages ${missing.join(' ')}`;
  console.error(
    `The browser tests need ${what}. Install with: sudo apt-get install -y ${missing.join(' ')} (or set CHROMIUM_PATH to a Chromium), then run npm test again.`,
  );
  process.exit(1);
}

console.log(`Installing what the browser tests need: ${missing.join(', ')} (apt-get)...`);
try {
  aptGet(runner, ['update', '-qq']);
  aptGet(runner, ['install', '-y', '-qq', ...missing]);
} catch (err) {
  console.error(
    `Could not install ${missing.join(' ')} with apt-get (${err.message.split('\n')[0]}): install them by hand, then run npm test again.`,
  );
  process.exit(1);
}
const still = missingPackages();
if (still.length) {
  console.error(`apt-get finished but ${still.join(', ')} is still missing (expected Chromium at ${CHROMIUM}).`);
  process.exit(1);
}
