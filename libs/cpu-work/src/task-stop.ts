import type { MessagePort } from 'node:worker_threads';

/**
 * Telling a task in its thread to stop, rather than ending the thread. Piscina ends the thread of a
 * task whose signal aborts: quick, but whatever the task had open stays as it was (an output part's
 * temporary file is left for the daily sweep) and the next task waits for a new thread. A task that
 * can stop itself is told instead, on the port its progress goes out on, and stops at its next step.
 */
const STOP = 'stop';

/** On the caller's side: tells the task on `port` to stop when `signal` aborts (at once if it has). Answers how to stop listening. */
export function relayStop(signal: AbortSignal, port: MessagePort): () => void {
  const tell = () => port.postMessage(STOP);
  if (signal.aborted) {
    tell();
    return () => undefined;
  }
  signal.addEventListener('abort', tell, { once: true });
  return () => signal.removeEventListener('abort', tell);
}

/** In the task's thread: a signal that aborts when the caller tells the task on `port` to stop. */
export function stopSignalOf(port: MessagePort): AbortSignal {
  const stop = new AbortController();
  port.on('message', (message: unknown) => {
    if (message === STOP) stop.abort(new DOMException('The task was told to stop.', 'AbortError'));
  });
  return stop.signal;
}
