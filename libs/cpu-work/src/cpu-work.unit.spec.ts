import { Piscina } from 'piscina';
import type { AppConfig } from '@app/config';
import type { BlobStore } from '@app/blob-storage';
import type { MessagePort } from 'node:worker_threads';
import { CpuWork } from './cpu-work';
import { announceStart, stopSignalOf } from './task-stop';
import { turnOffAllocationSitePretenuring } from './allocation-site-pretenuring';
import { letThreadsOptimiseOnTheirOwnThread } from './thread-compilation';
import { letThreadsSizeTheirHeaps } from './thread-heap-limits';
import { letThreadsCollectWhenIdle } from './thread-idle-collection';

// The pool is not started (its threads would load the built code); the flag setters are watched,
// and the code is taken for the built JavaScript, as in the service.
jest.mock('piscina', () => ({ Piscina: jest.fn().mockImplementation(() => ({ threads: [], queueSize: 0 })) }));
jest.mock('./thread-code', () => ({ threadsCanLoadThisCode: () => true }));
jest.mock('./allocation-site-pretenuring');
jest.mock('./thread-compilation');
jest.mock('./thread-heap-limits');
jest.mock('./thread-idle-collection');

/**
 * Each flag setter is tested for its effect on its own (its int spec); this is the wiring: the
 * service's file-work threads get all four, and get them before the pool can make an isolate,
 * since V8 reads each flag as a thread's isolate is made.
 */
describe('CpuWork and the V8 flags of its threads', () => {
  const setters = [
    letThreadsSizeTheirHeaps,
    letThreadsOptimiseOnTheirOwnThread,
    turnOffAllocationSitePretenuring,
    letThreadsCollectWhenIdle,
  ].map((fn) => fn as jest.MockedFunction<typeof fn>);
  const pool = Piscina as unknown as jest.Mock;
  const config = (threads: number) => ({ cpuWork: { threads, heapMb: 40, youngMb: 16 } }) as AppConfig;

  beforeEach(() => jest.clearAllMocks());

  it('sets every flag once, before the pool is made, when it has threads', () => {
    new CpuWork(config(2), {} as BlobStore);
    expect(pool).toHaveBeenCalledTimes(1);
    expect(pool.mock.calls[0][0]).toMatchObject({
      maxThreads: 2,
      resourceLimits: { maxOldGenerationSizeMb: 40, maxYoungGenerationSizeMb: 16 },
      // Idle threads keep their event loop turning, for the collection after a task's answer (thread-idle-collection.ts).
      atomics: 'disabled',
    });
    for (const setter of setters) {
      expect(setter).toHaveBeenCalledTimes(1);
      expect(setter.mock.invocationCallOrder[0]).toBeLessThan(pool.mock.invocationCallOrder[0]);
    }
  });

  it('leaves the flags alone without threads (CPU_WORKER_THREADS=0: the tasks run on the event loop)', () => {
    const work = new CpuWork(config(0), {} as BlobStore);
    expect(work.threads).toBe(0);
    expect(pool).not.toHaveBeenCalled();
    for (const setter of setters) expect(setter).not.toHaveBeenCalled();
  });
});

/**
 * A task that stops itself (STOPS_ITSELF), against a pool that stands in for piscina: a task it has taken up
 * runs "in a thread" (task-stop.ts's side of the port, as cpu-task-worker.ts does) until told to stop,
 * and answers what crossing a thread leaves of an AbortError (an empty object); a queued one waits
 * until piscina's signal takes it out.
 */
describe('CpuWork and a task that stops itself', () => {
  const pool = Piscina as unknown as jest.Mock;
  const config = { cpuWork: { threads: 1, heapMb: 40, youngMb: 16 } } as AppConfig;

  function poolThat(takesUp: boolean) {
    const seen: { signal: AbortSignal | null; stopped: boolean } = { signal: null, stopped: false };
    pool.mockImplementationOnce(() => ({
      threads: [],
      queueSize: 0,
      run: (message: { progress: MessagePort }, { signal }: { signal: AbortSignal | null }) => {
        seen.signal = signal;
        return new Promise((_, reject) => {
          signal?.addEventListener('abort', () => reject(new DOMException('dequeued', 'AbortError')));
          if (!takesUp) return;
          const stop = stopSignalOf(message.progress);
          announceStart(message.progress);
          // A progress figure after the announcement: once the caller hears it, it has heard the announcement (in order).
          message.progress.postMessage(7);
          stop.addEventListener('abort', () => {
            seen.stopped = true;
            // What structured clone leaves of the thread's AbortError (a DOMException) on Node 20.
            reject(structuredClone(new DOMException('told to stop', 'AbortError')));
          });
        });
      },
    }));
    return { work: new CpuWork(config, {} as BlobStore), seen };
  }
  const input = { run: {}, key: 'k', range: { fromRow: 1, toRow: null } } as never;
  const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('is told to stop in its thread once taken up: piscina does not end the thread, and the call rejects with the reason', async () => {
    const { work, seen } = poolThat(true);
    const caller = new AbortController();
    const heard: number[] = [];
    const call = work.run('writeOutputPart', input, { signal: caller.signal, onProgress: (n) => heard.push(n) });
    for (const deadline = Date.now() + 10_000; heard.length === 0;) {
      if (Date.now() > deadline) throw new Error('the stand-in thread never announced it took the task up');
      await turn();
    }
    caller.abort(new Error('another part failed'));
    await expect(call).rejects.toThrow('another part failed');
    expect(seen.stopped).toBe(true);
    expect(seen.signal!.aborted).toBe(false);
  });

  it('is taken out of the queue when its thread has not taken it up', async () => {
    const { work, seen } = poolThat(false);
    const caller = new AbortController();
    const call = work.run('writeOutputPart', input, { signal: caller.signal });
    await turn();
    caller.abort(new Error('given up'));
    await expect(call).rejects.toThrow('given up');
    expect(seen.signal!.aborted).toBe(true);
    expect(seen.stopped).toBe(false);
  });

  it("a task that does not stop itself: piscina holds the caller's own signal (the thread is ended)", async () => {
    const { work, seen } = poolThat(false);
    const caller = new AbortController();
    const call = work.run('writeRunOutput', input, { signal: caller.signal });
    caller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.signal).toBe(caller.signal);
  });
});

describe("CpuWork and a task's last progress figures", () => {
  const pool = Piscina as unknown as jest.Mock;
  const config = { cpuWork: { threads: 1, heapMb: 40, youngMb: 16 } } as AppConfig;

  it('hears the figures a task posted just before its answer, before the call settles', async () => {
    pool.mockImplementationOnce(() => ({
      threads: [],
      queueSize: 0,
      // As a thread does: figures posted, then the answer at once (progressPoster's flush comes right before it).
      run: (message: { progress: MessagePort }) => {
        for (const rows of [500, 1_000, 1_234]) message.progress.postMessage(rows);
        return Promise.resolve({ rows: 1_234 });
      },
    }));
    const work = new CpuWork(config, {} as BlobStore);
    for (let round = 0; round < 50; round++) {
      const heard: number[] = [];
      await work.run('writeOutputPart', { run: {}, key: 'k', range: { fromRow: 1, toRow: null } } as never, {
        onProgress: (n) => void heard.push(n),
      });
      expect({ round, last: heard.at(-1) }).toEqual({ round, last: 1_234 });
    }
  });
});
