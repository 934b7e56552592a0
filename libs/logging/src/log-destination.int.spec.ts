import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * The asynchronous log destination loses no line on a normal stop: a child process writes
 * lines through it faster than a pipe drains, then stops the way the service stops.
 */
const ROOT = join(__dirname, '..', '..', '..');
const LINES = 20_000;

let dir: string;
let bundle: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
  bundle = join(dir, 'log-destination.js');
  buildSync({
    entryPoints: [join(__dirname, 'log-destination.ts')],
    bundle: true,
    platform: 'node',
    external: ['pino'],
    outfile: bundle,
    logLevel: 'error',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` (after the destination is made, as `log`) in a child; its output lines and how it ended. */
function runChild(body: string): Promise<{ lines: string[]; code: number | null; signal: NodeJS.Signals | null }> {
  const script = join(dir, `child-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(script, `const log = require(${JSON.stringify(bundle)}).standardOutputLog();\n${body}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    // A slow reader: the pipe fills, so the destination has lines buffered when the stop comes.
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 5);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ lines: out.split('\n').filter(Boolean), code, signal }));
  });
}

const WRITE_LINES = `for (let i = 0; i < ${LINES}; i++) log.write(JSON.stringify({ i, pad: 'x'.repeat(100) }) + '\\n');`;
const expectEveryLine = (lines: string[], extra: string[] = []) => {
  expect(lines.length).toBe(LINES + extra.length);
  expect(lines.slice(0, LINES).every((l, i) => (JSON.parse(l) as { i: number }).i === i)).toBe(true);
  expect(lines.slice(LINES)).toEqual(extra);
};

describe('the asynchronous log destination', () => {
  it("keeps every line when SIGTERM stops it the way Nest's shutdown hooks do (close, log, send the signal again)", async () => {
    const { lines, signal } = await runChild(`
      // Nest's enableShutdownHooks: on the signal, close the application (its lines; the HTTP application's close
      // waits for the log, create-http-app.ts), then send the signal again.
      const shutdown = async (sig) => {
        await new Promise((r) => setImmediate(r));
        log.write('{"msg":"closing"}\\n');
        await log.whenWrittenThrough();
        log.write('{"msg":"closed"}\\n');
        process.removeListener(sig, shutdown);
        process.kill(process.pid, sig);
      };
      process.on('SIGTERM', shutdown);
      ${WRITE_LINES}
      process.kill(process.pid, 'SIGTERM');`);
    expect(signal).toBe('SIGTERM'); // ended by the signal, as without the destination's listener
    expectEveryLine(lines, ['{"msg":"closing"}', '{"msg":"closed"}']);
  });

  it('keeps every line when a signal nobody else handles stops it, and the signal still ends the process', async () => {
    const { lines, signal } = await runChild(`${WRITE_LINES}\nprocess.kill(process.pid, 'SIGINT');\nsetTimeout(() => {}, 10_000);`);
    expect(signal).toBe('SIGINT');
    expectEveryLine(lines);
  });

  it('keeps every line on process.exit', async () => {
    const { lines, code } = await runChild(`${WRITE_LINES}\nprocess.exit(3);`);
    expect(code).toBe(3);
    expectEveryLine(lines);
  });
});
