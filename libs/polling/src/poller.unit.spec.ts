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
});
