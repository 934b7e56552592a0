import { loopRestarts } from '@app/metrics';
import { loopHealth } from './loop-health';
import { Poller } from './poller';

describe('Poller', () => {
  it('runs the task again only after the previous run ended, and stop() waits for the run in progress', async () => {
    const log: string[] = [];
    let release: () => void = () => undefined;
    const poller = new Poller('test', 5, async () => {
      log.push('start');
      await new Promise<void>((r) => (release = r));
      log.push('end');
    });
    poller.start();
    while (log.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 40)); // eight periods more: still the first run
    expect(log).toEqual(['start']);
    const stopping = poller.stop();
    expect(poller.stopped).toBe(true);
    release();
    await stopping;
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual(['start', 'end']); // not armed again after stop
  });

  it('a failing run does not stop the polling', async () => {
    let runs = 0;
    const poller = new Poller('test', 2, async () => {
      runs++;
      throw new Error('store unreachable');
    });
    poller.start();
    // Waits for the runs instead of a fixed time: a busy machine may fire fewer timers in one.
    const until = Date.now() + 5000;
    while (runs < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    await poller.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
  });

  it('backs off after failures in a row, counts each restart, and is down for readiness until a run succeeds', async () => {
    const restarts = async () => (await loopRestarts.get()).values.find((v) => v.labels.loop === 'poller:flaky')?.value ?? 0;
    const before = await restarts();
    // On fake timers (and a fake Date.now): the gaps are exactly the delays the poller chose, so a
    // stalled machine cannot stretch them past the bounds below.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    // The jitter at its top: each back-off is then its whole ceiling.
    const random = jest.spyOn(Math, 'random').mockReturnValue(1);
    const at: number[] = [];
    let fail = 4;
    const poller = new Poller('flaky', 10, async () => {
      at.push(Date.now());
      if (fail-- > 0) throw new Error('read model unreachable');
    });
    try {
      poller.start();
      for (let waited = 0; at.length < 2 && waited < 10_000; waited++) await jest.advanceTimersByTimeAsync(1);
      expect(loopHealth.problems()).toEqual([{ loop: 'poller:flaky', problem: expect.stringContaining('read model unreachable') }]);
      for (let waited = 0; at.length < 6 && waited < 10_000; waited++) await jest.advanceTimersByTimeAsync(1);
      await poller.stop();
    } finally {
      jest.useRealTimers();
      random.mockRestore();
    }
    expect(at).toHaveLength(6);
    expect(await restarts()).toBe(before + 4);
    expect(loopHealth.problems()).toEqual([]);
    // After the failures the back-off doubles (20, 40, 80, 160 ms at the jitter's top); then the period again.
    expect(at.slice(1).map((t, i) => t - at[i])).toEqual([20, 40, 80, 160, 10]);
  });

  it('stop() during a back-off ends at once and forgets the poller', async () => {
    const poller = new Poller(
      'stopped-while-down',
      5,
      async () => {
        throw new Error('down');
      },
      60_000,
    );
    poller.start();
    for (const until = Date.now() + 5000; loopHealth.problems().length === 0 && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 2));
    const started = Date.now();
    await poller.stop();
    // It must not wait out the 60 s back-off; the bound leaves a stalled CI machine seconds of room.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(loopHealth.problems()).toEqual([]);
  });
});
