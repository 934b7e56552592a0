import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The image's build steps (scripts/build-image.sh, which deploy/Dockerfile runs) on a clean
 * copy of the repository, without Docker: the committed tree (`git archive HEAD`, as a clean
 * clone has it; IMAGE_BUILD_REF picks another commit) in a temporary directory, then
 * `npm ci` from the lock file, the build, `npm prune --omit=dev`, and every app's entry point
 * started from the result (scripts/check-entry-points.js). A step that would break the
 * image fails here. About 2 to 4 minutes: one `npm ci` (npm's cache is reused) and one build.
 */
const root = join(__dirname, '..', '..');
const apps = Object.entries(JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8')).projects as Record<string, { type: string }>)
  .filter(([, p]) => p.type === 'application')
  .map(([name]) => name)
  .sort();

describe('the image build script on a clean copy', () => {
  let copy: string;
  let build: { status: number | null; stdout: string; stderr: string };
  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'image-build-'));
    const archive = execFileSync('git', ['archive', '--format=tar', process.env.IMAGE_BUILD_REF || 'HEAD'], {
      cwd: root,
      maxBuffer: 512 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', copy], { input: archive });
    build = spawnSync('sh', ['scripts/build-image.sh'], {
      cwd: copy,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_cache: process.env.npm_config_cache },
      maxBuffer: 64 * 1024 * 1024,
    });
  }, 900_000);
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('installs from the lock file, builds, drops the dev dependencies and starts every entry point', () => {
    const output = `${build.stdout}\n${build.stderr}`;
    if (build.status !== 0) throw new Error(`scripts/build-image.sh exited with ${build.status}:\n${output.slice(-8000)}`);
    for (const app of apps) expect(output).toMatch(new RegExp(`entry point ${app}: (reached|answered|printed)`));
    // The dev dependencies are gone from what the image ships.
    expect(spawnSync(process.execPath, ['-e', "require.resolve('jest')"], { cwd: copy }).status).not.toBe(0);
    expect(spawnSync(process.execPath, ['-e', "require.resolve('kafkajs')"], { cwd: copy }).status).toBe(0);
    // The installed packages carry our patches (patches/README.md), which npm ci applied and the prune kept.
    expect(readFileSync(join(copy, 'node_modules/libphonenumber-js/build/helpers/matchesEntirely.js'), 'utf8')).toMatch(/Patched/);
  });

  it('the entry-point check fails when a runtime module is missing from the result', () => {
    expect(build.status).toBe(0);
    const module = join(copy, 'node_modules', 'kafkajs');
    renameSync(module, `${module}.away`);
    try {
      const check = spawnSync(process.execPath, ['scripts/check-entry-points.js', 'relay'], { cwd: copy, encoding: 'utf8' });
      expect(check.status).toBe(1);
      expect(check.stderr).toMatch(/entry point relay FAILED: exited .* before reaching its engines/);
      expect(check.stderr).toMatch(/Cannot find module 'kafkajs'/);
    } finally {
      renameSync(`${module}.away`, module);
    }
  });
});
