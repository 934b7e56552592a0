import pino from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/** How long a stop signal nobody else handles waits for the log to be written before it ends the process. */
const SIGNAL_FLUSH_WAIT_MS = 2000;

/**
 * Where the JSON log lines go: standard output, written asynchronously. A line costs the
 * event loop a copy into a buffer; sonic-boom (pino's destination) writes what gathered
 * while its previous write was under way in one system call (under load, many lines per
 * write; at rest, each line at once: nothing waits for a buffer to fill).
 *
 * No line is lost on a normal stop. When a stop begins (SIGTERM or SIGINT), the destination
 * stops writing asynchronously: what was buffered is written first, lines written meanwhile
 * are held, then written, then every later line is written synchronously, as it comes, so
 * the shutdown's own lines are out before Nest's shutdown hooks send the signal again and
 * end the process. The HTTP application waits for that (`whenWrittenThrough`, in its
 * close); a signal nobody else handles is sent again once it is done. A process that exits
 * (`process.exit`, an uncaught exception) writes what is buffered at 'exit'. SIGKILL loses
 * at most the lines of the write under way.
 */
export class LogDestination {
  private readonly async: SonicBoom;
  private sync: SonicBoom | null = null;
  /** Nothing buffered or being written by the asynchronous writer. */
  private idle = true;
  /** Lines written after a stop began, while the asynchronous writer finishes. */
  private held: string[] | null = null;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly fd = 1) {
    this.async = pino.destination({ dest: fd, sync: false });
    this.async.on('drain', () => {
      this.idle = true;
      this.finishAsynchronousWrites();
    });
  }

  write(line: string): boolean {
    if (this.sync) return this.sync.write(line);
    if (this.held) {
      this.held.push(line);
      return true;
    }
    this.idle = false;
    return this.async.write(line);
  }

  /** Resolves once every line so far is written; from then on each line is written as it comes. */
  whenWrittenThrough(): Promise<void> {
    this.stopWritingAsynchronously();
    if (this.sync) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  stopWritingAsynchronously(): void {
    if (this.sync || this.held) return;
    this.held = [];
    if (this.idle) this.finishAsynchronousWrites();
  }

  /** At 'exit' nothing can be waited for: what is buffered is written now (a write under way finishes on its own). */
  writeEverythingNow(): void {
    if (!this.sync) {
      try {
        this.async.flushSync();
      } catch (err) {
        process.stderr.write(`Could not flush the log: ${(err as Error).message}\n`);
      }
    }
    this.held ??= [];
    this.finishAsynchronousWrites();
  }

  private finishAsynchronousWrites(): void {
    if (!this.held) return;
    this.sync ??= pino.destination({ dest: this.fd, sync: true });
    for (const line of this.held) this.sync.write(line);
    this.held = null;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

let processDestination: LogDestination | null = null;

/** The process's log destination (standard output), made once, with what it needs at exit and at the first stop signal. */
export function standardOutputLog(): LogDestination {
  if (processDestination) return processDestination;
  const destination = new LogDestination(1);
  processDestination = destination;
  process.once('exit', () => destination.writeEverythingNow());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // Prepended and once: runs before Nest's shutdown hook (which logs while it closes the application), then is gone.
    process.prependOnceListener(signal, () => {
      destination.stopWritingAsynchronously();
      if (process.listenerCount(signal) > 0) return;
      // Alone, this listener would have swallowed the signal: it ends the process as it would have, once the log is out.
      const timer = setTimeout(() => process.kill(process.pid, signal), SIGNAL_FLUSH_WAIT_MS);
      void destination.whenWrittenThrough().then(() => {
        clearTimeout(timer);
        process.kill(process.pid, signal);
      });
    });
  }
  return destination;
}
