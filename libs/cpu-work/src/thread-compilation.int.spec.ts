import { isolateFlagProbe } from './testing/isolate-flag-probe';

/**
 * Once letThreadsOptimiseOnTheirOwnThread has run, a thread started afterwards compiles its hot
 * functions synchronously, on itself, while the main thread still hands its compiles to V8's
 * helper threads. Read from `--trace-opt`, which names each TurboFan compile's mode.
 */
describe('where the threads optimise their code', () => {
  const probe = isolateFlagProbe(
    'thread-compilation',
    `const { Worker } = require('node:worker_threads');
if (process.argv[2] === 'call') require('./thread-compilation').letThreadsOptimiseOnTheirOwnThread();
function hotInMain(x) { return x * 3 + 1; }
let sum = 0;
for (let i = 0; i < 3e6; i++) sum += hotInMain(i);
new Worker(
  "function hotInThread(x) { return x * 2 + 1; } let sum = 0; for (let i = 0; i < 3e6; i++) sum += hotInThread(i);" +
  "require('node:worker_threads').parentPort.postMessage(sum);",
  { eval: true },
).on('message', () => process.stdout.write(String(sum) + '\\n'));
`,
  );
  /** The mode of the first TurboFan compile of each hot function, in the main thread and in the thread. */
  const modes = (mode: 'call' | 'skip') => {
    const trace = probe(['--trace-opt'], mode);
    const modeOf = (fn: string) => new RegExp(`compiling method .*<JSFunction ${fn} .*mode: ConcurrencyMode::(\\w+)`).exec(trace)?.[1];
    return { main: modeOf('hotInMain'), thread: modeOf('hotInThread') };
  };

  it('is the thread itself for a thread started after the call, the helpers for the main thread', () => {
    expect(modes('call')).toEqual({ main: 'kConcurrent', thread: 'kSynchronous' });
  });

  it('is the helpers for both without it (what the function is there for)', () => {
    expect(modes('skip')).toEqual({ main: 'kConcurrent', thread: 'kConcurrent' });
  });
});
