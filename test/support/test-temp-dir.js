/*
 * One temporary folder per test run (jest's globalSetup and globalTeardown). Every test makes
 * its folders under os.tmpdir(), and the services it starts inherit the environment, so with
 * TMPDIR pointing here the whole run's files are removed in one place when it ends, even
 * those of a test that forgot its own clean-up. Before, a full run left about ninety folders
 * in /tmp, and across many runs they filled the disk of a machine that keeps its /tmp.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const FOLDER = Symbol.for('transformation-service.test-temp-dir');

async function setup() {
  const folder = mkdtempSync(join(tmpdir(), 'transformation-tests-'));
  globalThis[FOLDER] = { folder, before: process.env.TMPDIR };
  process.env.TMPDIR = folder;
}

async function teardown() {
  const kept = globalThis[FOLDER];
  if (!kept) return;
  if (kept.before === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = kept.before;
  // A process a test left running may still write here: removal is retried, and never fails the run.
  try {
    rmSync(kept.folder, { recursive: true, force: true, maxRetries: 3, retryDelay: 200 });
  } catch (err) {
    console.warn(`The tests' temporary folder ${kept.folder} could not be removed: ${err.message}`);
  }
}

module.exports = { setup, teardown };
