import { MessageChannel } from 'node:worker_threads';
import { relayStop, stopSignalOf } from './task-stop';

describe("a task told to stop across its progress port (the caller's side and the thread's)", () => {
  const channel = () => {
    const { port1, port2 } = new MessageChannel();
    const stop = stopSignalOf(port2);
    return { caller: port1, stop, close: () => (port1.close(), port2.close()) };
  };
  const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

  it("aborts the thread's signal when the caller's aborts, with an AbortError", async () => {
    const { caller, stop, close } = channel();
    const signal = new AbortController();
    relayStop(signal.signal, caller);
    await turn();
    expect(stop.aborted).toBe(false);
    signal.abort();
    await turn();
    expect(stop.aborted).toBe(true);
    expect(stop.reason).toMatchObject({ name: 'AbortError' });
    close();
  });

  it('tells it at once when the signal had aborted already', async () => {
    const { caller, stop, close } = channel();
    relayStop(AbortSignal.abort(), caller);
    await turn();
    expect(stop.aborted).toBe(true);
    close();
  });

  it('tells it nothing once the caller stopped listening (the task had ended), nor for a progress figure', async () => {
    const { caller, stop, close } = channel();
    const signal = new AbortController();
    const stopListening = relayStop(signal.signal, caller);
    caller.postMessage(1200);
    stopListening();
    signal.abort();
    await turn();
    expect(stop.aborted).toBe(false);
    close();
  });
});
