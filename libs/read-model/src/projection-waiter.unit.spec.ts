import { Logger } from '@nestjs/common';
import { ProjectionWaiter } from './projection-waiter';
import type { RunReadModel } from './read-model.port';

/** A read model whose run document shows revision `shown()` each time it is read. */
const readModelShowing = (shown: () => number) => ({ getRun: async () => ({ revision: shown() }) }) as unknown as RunReadModel;

describe('ProjectionWaiter', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers true once the run document shows the revision written', async () => {
    let reads = 0;
    const waiter = new ProjectionWaiter(readModelShowing(() => (++reads >= 3 ? 7 : 6)));
    await expect(waiter.waitFor('r1', 7)).resolves.toBe(true);
    expect(reads).toBe(3);
  });

  it('gives up after its time, false, and says so in the log', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const waiter = new ProjectionWaiter(readModelShowing(() => 2));
    await expect(waiter.waitFor('r1', 3, 50)).resolves.toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Run r1: the projection did not reach revision 3 within 50 ms'));
  });
});
