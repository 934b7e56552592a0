import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The test command must exit by itself even when a suite's set-up fails half-way: what the
 * suite started is closed by test/support/jest-setup.ts. A separate Jest runs a suite that
 * breaks on purpose (test/support/fixtures/broken-setup.fixture.ts) and must fail promptly.
 */
describe('a suite whose set-up fails', () => {
  it('fails, closes what it started and lets Jest exit by itself', () => {
    const started = Date.now();
    const result = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--runInBand',
        '--ci',
        '--rootDir',
        ROOT,
        '--roots',
        '<rootDir>/test/support/fixtures',
        '--testMatch',
        '**/broken-setup.fixture.ts',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 90_000, env: { ...process.env, FORCE_COLOR: '0' } },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.signal).toBeNull(); // not killed by our timeout: it ended by itself
    expect(result.status).toBe(1);
    expect(output).toContain('set-up broken on purpose');
    expect(output).not.toContain('did not exit');
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 100_000);
});
