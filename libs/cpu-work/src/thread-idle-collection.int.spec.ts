import { isolateFlagProbe } from './testing/isolate-flag-probe';
import { CollectionBetweenTasks } from './thread-idle-collection';

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
 * thread's next task (here, one that reports the heap 300 ms later) finds it still there. CollectionBetweenTasks, with
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
const { collectBeforeIdle, CollectionBetweenTasks } = require('./thread-idle-collection');
const between = new CollectionBetweenTasks();
module.exports = async ({ task, when }) => {
  if (when === 'answered') between.taskStarts();
  try {
    if (task === 'heap') return v8.getHeapStatistics().used_heap_size / 1048576;
    const rows = [];
    for (let i = 0; i < 60000; i++) rows.push('row ' + i + ' ' + 'x'.repeat(400));
    return rows;
  } finally {
    if (when === 'answered') between.taskEnded();
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

/** When CollectionBetweenTasks collects, with the event loop's turns in the test's hands. */
describe('CollectionBetweenTasks', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('collects once the turn that sent the answer is over, and not again as the next task starts', () => {
    const collect = jest.fn();
    const between = new CollectionBetweenTasks(collect);
    between.taskStarts();
    between.taskEnded();
    expect(collect).not.toHaveBeenCalled();
    jest.runAllTicks();
    jest.runOnlyPendingTimers();
    expect(collect).toHaveBeenCalledTimes(1);
    between.taskStarts();
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('collects as the next task starts when that one came first (tasks queued), and not again in the middle of it', () => {
    const collect = jest.fn();
    const between = new CollectionBetweenTasks(collect);
    between.taskStarts();
    between.taskEnded();
    between.taskStarts();
    expect(collect).toHaveBeenCalledTimes(1);
    jest.runOnlyPendingTimers();
    expect(collect).toHaveBeenCalledTimes(1);
    between.taskEnded();
    jest.runOnlyPendingTimers();
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('does not collect before any task has ended', () => {
    const collect = jest.fn();
    new CollectionBetweenTasks(collect).taskStarts();
    jest.runOnlyPendingTimers();
    expect(collect).not.toHaveBeenCalled();
  });
});
