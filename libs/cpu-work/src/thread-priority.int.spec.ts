import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ModuleKind, transpileModule } from 'typescript';

/**
 * A file-work thread lowers itself (yieldCpuToOtherThreads), and only itself: in a real worker
 * thread, read back from the kernel's view of each thread (/proc/<pid>/task/<tid>/stat).
 */
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/** The scheduling policy and nice value of one thread of this process. */
function scheduling(tid: string): { policy: number; nice: number } {
  // Fields after the command's closing parenthesis, from the third (state): nice is the 19th field, policy the 41st.
  const fields = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) };
}

describe('the file-work thread’s priority', () => {
  const dir = mkdtempSync(join(tmpdir(), 'thread-priority-'));
  writeFileSync(
    join(dir, 'thread-priority.js'),
    transpileModule(readFileSync(join(__dirname, 'thread-priority.ts'), 'utf8'), { compilerOptions: { module: ModuleKind.CommonJS } })
      .outputText,
  );

  it('is the idle class at nice 10 for the thread that asked, and unchanged for the thread that started it', async () => {
    const main = scheduling(String(process.pid));
    const thread = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const tid = require('node:fs').readlinkSync('/proc/thread-self').split('/').pop();
       require(${JSON.stringify(join(dir, 'thread-priority.js'))}).yieldCpuToOtherThreads((set, why) => parentPort.postMessage({ tid, set, why }));
       setTimeout(() => undefined, 60_000);`,
      { eval: true },
    );
    try {
      const reply = await new Promise<{ tid: string; set: boolean; why?: string }>((resolve, reject) => {
        thread.once('message', resolve);
        thread.once('error', reject);
      });
      expect(reply).toEqual({ tid: expect.stringMatching(/^\d+$/), set: true, why: undefined });
      expect(scheduling(reply.tid)).toEqual({ policy: SCHED_IDLE, nice: 10 });
      expect(main.policy).toBe(SCHED_OTHER);
      expect(scheduling(String(process.pid))).toEqual(main);
    } finally {
      await thread.terminate();
    }
  });

  it('stays at nice 10 in a process with one CPU (taskset), where the idle class would stall the work under a steady load', () => {
    const probe = `const { Worker } = require('node:worker_threads');
      const thread = new Worker(\`
        const { parentPort } = require('node:worker_threads');
        const tid = require('node:fs').readlinkSync('/proc/thread-self').split('/').pop();
        require(${JSON.stringify(join(dir, 'thread-priority.js'))}).yieldCpuToOtherThreads((set, why) => {
          const fields = require('node:fs').readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ');
          parentPort.postMessage({ set, why, nice: Number(fields[16]), policy: Number(fields[38]) });
        });\`, { eval: true });
      thread.once('message', (m) => { console.log(JSON.stringify(m)); process.exit(0); });`;
    const r = spawnSync('taskset', ['--cpu-list', '0', process.execPath, '-e', probe], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ set: false, why: 'a single CPU', nice: 10, policy: SCHED_OTHER });
  });
});
