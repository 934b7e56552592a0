import { Piscina } from 'piscina';
import type { AppConfig } from '@app/config';
import type { BlobStore } from '@app/blob-storage';
import { CpuWork } from './cpu-work';
import { turnOffAllocationSitePretenuring } from './allocation-site-pretenuring';
import { letThreadsOptimiseOnTheirOwnThread } from './thread-compilation';
import { letThreadsSizeTheirYoungGeneration } from './thread-young-generation';

// The pool is not started (its threads would load the built code); the flag setters are watched,
// and the code is taken for the built JavaScript, as in the service.
jest.mock('piscina', () => ({ Piscina: jest.fn().mockImplementation(() => ({ threads: [], queueSize: 0 })) }));
jest.mock('./thread-code', () => ({ threadsCanLoadThisCode: () => true }));
jest.mock('./allocation-site-pretenuring');
jest.mock('./thread-compilation');
jest.mock('./thread-young-generation');

/**
 * Each flag setter is tested for its effect on its own (its int spec); this is the wiring: the
 * service's file-work threads get all three, and get them before the pool can make an isolate,
 * since V8 reads each flag as a thread's isolate is made.
 */
describe('CpuWork and the V8 flags of its threads', () => {
  const setters = [letThreadsSizeTheirYoungGeneration, letThreadsOptimiseOnTheirOwnThread, turnOffAllocationSitePretenuring].map(
    (fn) => fn as jest.MockedFunction<typeof fn>,
  );
  const pool = Piscina as unknown as jest.Mock;
  const config = (threads: number) => ({ cpuWork: { threads, heapMb: 40, youngMb: 16 } }) as AppConfig;

  beforeEach(() => jest.clearAllMocks());

  it('sets every flag once, before the pool is made, when it has threads', () => {
    new CpuWork(config(2), {} as BlobStore);
    expect(pool).toHaveBeenCalledTimes(1);
    expect(pool.mock.calls[0][0]).toMatchObject({
      maxThreads: 2,
      resourceLimits: { maxOldGenerationSizeMb: 40, maxYoungGenerationSizeMb: 16 },
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
