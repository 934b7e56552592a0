import type { MessagePort } from 'node:worker_threads';

/**
 * Telling a task in its thread to stop, rather than ending the thread. Piscina ends the thread of a
 * running task whose signal aborts: quick, but whatever the task had open stays as it was (an output
 * part's temporary file was left for the daily sweep) and the next task waits for a new thread. A
 * task that can stop itself is told instead, on the port its progress goes out on, and stops at its
 * next step. Until its thread has taken it up, the task is still in piscina's queue, and there the
 * signal piscina holds takes it out, as before: the thread announces when it takes a task up. (An abort
 * that crosses the announcement on its way goes to piscina, which then ends the running thread: the
 * old way, rare, and no worse.)
 */
const STOP = 'stop';
const STARTED = 'started';

/** In the task's thread, as it takes the task up: what tells the caller that a stop now goes to the thread. */
export function announceStart(port: MessagePort): void {
  port.postMessage(STARTED);
}

/** On the caller's side: whether a message from the task's port is the announcement (the others are its progress). */
export const isStartAnnouncement = (message: unknown): boolean => message === STARTED;

/**
 * On the caller's side: when `signal` aborts (at once if it has), a task not yet taken up is taken out
 * of the queue (`dequeue`, the signal piscina holds) and a running one is told to stop on `port`.
 * Answers how to stop listening.
 */
export function relayStop(signal: AbortSignal, port: MessagePort, started: () => boolean, dequeue: AbortController): () => void {
  const tell = () => (started() ? port.postMessage(STOP) : dequeue.abort(signal.reason));
  if (signal.aborted) {
    tell();
    return () => undefined;
  }
  signal.addEventListener('abort', tell, { once: true });
  return () => signal.removeEventListener('abort', tell);
}

/**
 * In the task's thread: a signal that aborts when the caller tells the task on `port` to stop. The
 * message lands when the thread's event loop turns: a task sees it between steps that wait for
 * input or output (a batch read from or written to a file), not inside a step.
 */
export function stopSignalOf(port: MessagePort): AbortSignal {
  const stop = new AbortController();
  port.on('message', (message: unknown) => {
    if (message === STOP) stop.abort(new DOMException('The task was told to stop.', 'AbortError'));
  });
  return stop.signal;
}
