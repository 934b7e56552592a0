import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/**
 * The memory settings the service was measured with (docs/files.md, "Memory"): V8's caps and
 * glibc's malloc settings come from package.json's config, and every way of starting the
 * service must run node with them: `npm start`, `npm run start:app` and the image.
 */
const root = join(__dirname, '..', '..');
const { config } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  config: Record<'heap_mb' | 'semi_space_mb' | 'malloc_arena_max' | 'malloc_mmap_threshold', string>;
};

/** npm's own script, run by this node: `npm` on the PATH would start the stand-in below. */
const npmCli = process.env.npm_execpath ?? join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

/** What `npm run <script>` hands node: a stand-in `node` first on the PATH prints its environment's settings and arguments. */
function startedBy(script: string, env: NodeJS.ProcessEnv = {}) {
  const bin = mkdtempSync(join(tmpdir(), 'fake-node-'));
  try {
    const fake = join(bin, 'node');
    // Its parent's name too: npm's own process when the script's shell handed its process over to node (exec).
    writeFileSync(fake, '#!/bin/sh\necho "$MALLOC_ARENA_MAX|$MALLOC_MMAP_THRESHOLD_|$(cat /proc/$PPID/comm)|$*"\n');
    chmodSync(fake, 0o755);
    // --ignore-scripts: not prestart's build; the script itself still runs.
    const run = spawnSync(process.execPath, [npmCli, 'run', '--silent', '--ignore-scripts', script], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: `${bin}${delimiter}${process.env.PATH}`, HOME: process.env.HOME, APP: 'gateway', ...env },
    });
    if (run.status !== 0) throw new Error(`npm run ${script} exited with ${run.status}: ${run.stderr}`);
    const [arenas, threshold, parent, args] = run.stdout.trim().split('\n').pop()!.split('|');
    return { arenas, threshold, parent, args: args.split(' ') };
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

describe('the memory settings the service starts with', () => {
  it.each(['start', 'start:app'])('npm run %s passes package.json config to node', (script) => {
    const started = startedBy(script);
    expect(started.arenas).toBe(config.malloc_arena_max);
    expect(started.threshold).toBe(config.malloc_mmap_threshold);
    expect(started.args).toEqual(
      expect.arrayContaining([`--max-old-space-size=${config.heap_mb}`, `--max-semi-space-size=${config.semi_space_mb}`]),
    );
  });

  // A supervisor stops the service by signalling the process it started: npm hands the signal to its child, which must
  // be node itself, not a shell that dies and leaves node serving on the port (an operator's probe found it so).
  it.each(['start', 'start:app'])('npm run %s runs node in place of its shell, so a signal to npm reaches the service', (script) => {
    // npm names its process after the script ("npm run start"); a shell left in between is "sh".
    expect(startedBy(script).parent).toMatch(/^npm run /);
  });

  it('npm run start:app names the apps when APP names none, before it builds anything', () => {
    const run = spawnSync(process.execPath, [npmCli, 'run', '--silent', 'start:app'], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, APP: 'web' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('APP must name one app: gateway, relay, ingestion, mapping, output, notifier or projector (got "web")');
  });

  it('an operator overrides each of them through the environment', () => {
    const started = startedBy('start', { MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '131072', HEAP_MB: '200', SEMI_SPACE_MB: '8' });
    expect([started.arenas, started.threshold]).toEqual(['4', '131072']);
    expect(started.args).toEqual(expect.arrayContaining(['--max-old-space-size=200', '--max-semi-space-size=8']));
  });

  it('the image sets the same values', () => {
    const dockerfile = readFileSync(join(root, 'deploy/Dockerfile'), 'utf8');
    const env = /^ENV (.*)$/m.exec(dockerfile.split(/^FROM /m).pop()!)![1];
    expect(env).toContain(`MALLOC_ARENA_MAX=${config.malloc_arena_max}`);
    expect(env).toContain(`MALLOC_MMAP_THRESHOLD_=${config.malloc_mmap_threshold}`);
    const cmd = /^CMD (.*)$/m.exec(dockerfile)![1];
    expect(cmd).toContain(`--max-old-space-size=\${HEAP_MB:-${config.heap_mb}}`);
    expect(cmd).toContain(`--max-semi-space-size=\${SEMI_SPACE_MB:-${config.semi_space_mb}}`);
  });
});
