import { allOrNone } from './all-or-none';

/** A task that ends when told to, or rejects when its signal aborts. */
function waiting(signal: AbortSignal): { promise: Promise<string>; finish: (v: string) => void } {
  let finish: (v: string) => void = () => undefined;
  const promise = new Promise<string>((resolve, reject) => {
    finish = resolve;
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
  return { promise, finish };
}

describe('allOrNone', () => {
  it('gives every result in order when all succeed', async () => {
    expect(await allOrNone([3, 1, 2], async (n, _signal, i) => `${n}@${i}`)).toEqual(['3@0', '1@1', '2@2']);
  });

  it('aborts the others when one fails, and throws that failure', async () => {
    const signals: AbortSignal[] = [];
    const run = allOrNone(['slow', 'bad'], async (item, signal) => {
      signals.push(signal);
      if (item === 'bad') throw new Error('disk full');
      return waiting(signal).promise;
    });
    await expect(run).rejects.toThrow('disk full');
    expect(signals[0].aborted).toBe(true);
  });

  it('aborts them all when the outer signal does', async () => {
    const outer = new AbortController();
    const run = allOrNone([1, 2], async (_n, signal) => waiting(signal).promise, outer.signal);
    outer.abort();
    await expect(run).rejects.toThrow('aborted');
  });
});
