import { isolateFlagProbe } from './testing/isolate-flag-probe';

/**
 * A thread that ended a task holding garbage collects it before it waits (collectBeforeIdle), once the process let
 * its threads collect (letThreadsCollectWhenIdle): without it the garbage stays until the thread's next task, as an
 * idle pool thread runs no collection. The thread leaves 30 MB of garbage, reports its heap, collects, reports again.
 */
describe('a file-work thread collects as its task ends', () => {
  const run = isolateFlagProbe(
    'thread-idle-collection',
    `const { Worker } = require('node:worker_threads');
const collection = require('./thread-idle-collection');
if (process.argv[2] === 'let') collection.letThreadsCollectWhenIdle();
const thread = new Worker(
  "const v8 = require('node:v8');" +
  "const { collectBeforeIdle } = require(" + JSON.stringify(require.resolve('./thread-idle-collection')) + ");" +
  "let rows = []; for (let i = 0; i < 60000; i++) rows.push(['row ' + i, 'x'.repeat(400) + i]); rows = null;" +
  "const before = v8.getHeapStatistics().used_heap_size;" +
  "const collected = collectBeforeIdle();" +
  "require('node:worker_threads').parentPort.postMessage({ collected, beforeMb: before / 1048576, afterMb: v8.getHeapStatistics().used_heap_size / 1048576 });",
  { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } },
);
thread.on('message', (m) => { console.log(JSON.stringify({ ...m, mainGc: typeof globalThis.gc })); thread.terminate(); });
`,
  );
  type Probe = { collected: boolean; beforeMb: number; afterMb: number; mainGc: string };
  const probe = (mode: 'let' | 'not') => JSON.parse(run([], mode)) as Probe;

  it('frees what the task left (30 MB of rows down to a few), and the main thread gains no gc of its own', () => {
    const { collected, beforeMb, afterMb, mainGc } = probe('let');
    expect(collected).toBe(true);
    expect(beforeMb).toBeGreaterThan(20);
    expect(afterMb).toBeLessThan(10);
    expect(mainGc).toBe('undefined');
  });

  it('cannot without the flag set before the thread started: the garbage stays', () => {
    const { collected, beforeMb, afterMb } = probe('not');
    expect(collected).toBe(false);
    expect(afterMb).toBeGreaterThan(beforeMb * 0.8);
  });
});

/**
 * A task's answer is garbage only once the pool has sent it: a collection as the task ends cannot free it, and the
 * thread's next task (here, one that reports the heap 300 ms later) finds it still there. collectOnceAnswered, with
 * the pool's threads waiting with their event loop turning (`atomics: 'disabled'`, as CpuWork's pool), frees it too.
 */
describe("a file-work thread collects its task's answer once it is sent", () => {
  const run = isolateFlagProbe(
    'thread-idle-collection',
    `const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Piscina } = require(${JSON.stringify(require.resolve('piscina'))});
require('./thread-idle-collection').letThreadsCollectWhenIdle();
const workerFile = join(__dirname, 'answering-thread.js');
writeFileSync(workerFile, \`
const v8 = require('node:v8');
const { collectBeforeIdle, collectOnceAnswered } = require('./thread-idle-collection');
module.exports = async ({ task, when }) => {
  if (task === 'heap') return v8.getHeapStatistics().used_heap_size / 1048576;
  try {
    const rows = [];
    for (let i = 0; i < 60000; i++) rows.push('row ' + i + ' ' + 'x'.repeat(400));
    return rows;
  } finally {
    if (when === 'answered') collectOnceAnswered(() => false);
    else collectBeforeIdle();
  }
};\`);
const when = process.argv[2];
const pool = new Piscina({
  filename: workerFile,
  minThreads: 1,
  maxThreads: 1,
  atomics: when === 'answered' ? 'disabled' : 'sync',
  resourceLimits: { maxOldGenerationSizeMb: 64 },
});
(async () => {
  const rows = await pool.run({ task: 'rows', when });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const heapMb = await pool.run({ task: 'heap', when });
  console.log(JSON.stringify({ rows: rows.length, heapMb }));
  await pool.destroy();
})();
`,
  );
  const probe = (when: 'answered' | 'ending') => JSON.parse(run([], when)) as { rows: number; heapMb: number };

  it('frees the 25 MB of rows it answered with, before its next task', () => {
    const { rows, heapMb } = probe('answered');
    expect(rows).toBe(60_000);
    expect(heapMb).toBeLessThan(10);
  });

  it('keeps them when it collects as the task ends, the answer not yet sent', () => {
    const { rows, heapMb } = probe('ending');
    expect(rows).toBe(60_000);
    expect(heapMb).toBeGreaterThan(20);
  });
});
