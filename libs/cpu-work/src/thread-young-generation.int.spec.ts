import { isolateFlagProbe } from './testing/isolate-flag-probe';

/**
 * A process started with a small young generation for its main thread (as `npm start` starts
 * it) still gives each file-work thread the young generation of its resource limits, once
 * letThreadsSizeTheirYoungGeneration has run. The thread makes short-lived garbage until V8 has
 * grown its young generation as far as it may, and reports its size.
 */
describe('the threads young generation under a small main one', () => {
  const run = isolateFlagProbe(
    'thread-young-generation',
    `const { Worker } = require('node:worker_threads');
if (process.argv[2] === 'clear') require('./thread-young-generation').letThreadsSizeTheirYoungGeneration();
const newSpaceMb = () => require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const thread = new Worker(
  "let keep = []; for (let i = 0; i < 4e6; i++) { keep.push({ i }); if (keep.length > 50000) keep = []; }" +
  "require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);",
  { eval: true, resourceLimits: { maxOldGenerationSizeMb: 40, maxYoungGenerationSizeMb: 32 } },
);
thread.on('message', (threadMb) => console.log(JSON.stringify({ threadMb, mainMb: newSpaceMb() })));
`,
  );
  const probe = (mode: 'clear' | 'keep') => JSON.parse(run(['--max-semi-space-size=1'], mode)) as { threadMb: number; mainMb: number };

  it('is the thread’s own (32 MB asked, at least 16 MB grown), while the main thread keeps its 1 MB semi-spaces', () => {
    const { threadMb, mainMb } = probe('clear');
    expect(threadMb).toBeGreaterThanOrEqual(16);
    expect(mainMb).toBeLessThanOrEqual(2);
  });

  it('stays at the main thread’s flag without it (what the function is there for)', () => {
    expect(probe('keep').threadMb).toBeLessThanOrEqual(2);
  });
});
