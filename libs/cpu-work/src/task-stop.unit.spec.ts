import { MessageChannel } from 'node:worker_threads';
import { announceStart, isStartAnnouncement, relayStop, stopSignalOf } from './task-stop';

describe("a task told to stop across its progress port (the caller's side and the thread's)", () => {
  /** The caller's port, and the thread's: its stop signal, and whether it announced it took the task up. */
  const channel = (takenUp: boolean) => {
    const { port1, port2 } = new MessageChannel();
    const stop = stopSignalOf(port2);
    let started = false;
    port1.on('message', (m) => isStartAnnouncement(m) && (started = true));
    if (takenUp) announceStart(port2);
    return { caller: port1, stop, started: () => started, close: () => (port1.close(), port2.close()) };
  };
  const turn = () => new Promise((resolve) => setTimeout(resolve, 20));
  /** Until `done` holds: a message between ports lands when the event loop turns, later on a loaded machine. */
  const until = async (done: () => boolean) => {
    for (const deadline = Date.now() + 10_000; !done() && Date.now() < deadline;) await turn();
  };

  it("aborts a running task's signal in its thread when the caller's aborts, with an AbortError; the queue is left alone", async () => {
    const { caller, stop, started, close } = channel(true);
    const signal = new AbortController();
    const dequeue = new AbortController();
    relayStop(signal.signal, caller, started, dequeue);
    await until(started);
    expect(stop.aborted).toBe(false);
    signal.abort();
    await until(() => stop.aborted);
    expect(stop.aborted).toBe(true);
    expect(stop.reason).toMatchObject({ name: 'AbortError' });
    expect(dequeue.signal.aborted).toBe(false);
    close();
  });

  it('takes a task its thread has not taken up out of the queue instead, with the reason given', async () => {
    const { caller, stop, started, close } = channel(false);
    const signal = new AbortController();
    const dequeue = new AbortController();
    relayStop(signal.signal, caller, started, dequeue);
    signal.abort('given up');
    await turn();
    expect(dequeue.signal.reason).toBe('given up');
    expect(stop.aborted).toBe(false);
    close();
  });

  it('acts at once when the signal had aborted already', async () => {
    const dequeue = new AbortController();
    const queued = channel(false);
    relayStop(AbortSignal.abort(), queued.caller, queued.started, dequeue);
    expect(dequeue.signal.aborted).toBe(true);
    queued.close();
  });

  it('tells it nothing once the caller stopped listening (the task had ended), nor for a progress figure', async () => {
    const { caller, stop, started, close } = channel(true);
    const signal = new AbortController();
    const dequeue = new AbortController();
    await until(started);
    const stopListening = relayStop(signal.signal, caller, started, dequeue);
    caller.postMessage(1200);
    stopListening();
    signal.abort();
    await turn();
    expect(stop.aborted).toBe(false);
    expect(dequeue.signal.aborted).toBe(false);
    close();
  });
});
