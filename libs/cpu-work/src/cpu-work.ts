import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { BLOB_STORE, revivedBlobError, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { fileWorkThreads } from '@app/metrics';
import { turnOffAllocationSitePretenuring } from './allocation-site-pretenuring';
import { letThreadsOptimiseOnTheirOwnThread } from './thread-compilation';
import { letThreadsSizeTheirHeaps } from './thread-heap-limits';
import { letThreadsCollectWhenIdle } from './thread-idle-collection';
import { threadsCanLoadThisCode } from './thread-code';
import { buffersIn } from './moved-buffers';
import { isStartAnnouncement, relayStop } from './task-stop';
import { CPU_TASKS, STOPS_ITSELF, type CpuTaskInput, type CpuTaskMessage, type CpuTaskName, type CpuTaskResult } from './cpu-tasks';

export interface CpuTaskOptions {
  /**
   * Hears progress (rows so far) while the task runs. Calls run one after the other, and
   * `run` settles only once the last has finished, so no progress is recorded after the
   * task's outcome; a failed call is logged, not thrown (progress is informative).
   */
  onProgress?: (rows: number) => unknown;
  /**
   * Aborting stops the task. One of STOPS_ITSELF is told in its thread once the thread has taken it up
   * (task-stop.ts), stops at its next step and cleans up after itself, and its thread carries on; still
   * queued, it is taken out of the queue; the call rejects with the signal's reason, or resolves with
   * what the task answers a stop with (a count's null). If the abort crosses the thread's announcement
   * that it took the task up, piscina ends the thread, and what the task had open is left (a temporary
   * file, for the daily sweep). Any other task is ended with its thread (which is replaced), and the
   * call rejects with an AbortError.
   */
  signal?: AbortSignal;
  /**
   * The input's typed arrays move to the thread instead of being copied: the caller gives them
   * up (they are empty afterwards), so never with arrays another task is still to receive.
   */
  moveInput?: boolean;
  /** Message ports in the input, moved to the thread (a port cannot be copied). */
  ports?: readonly MessagePort[];
}

/**
 * Runs the CPU-heavy steps in a pool of worker threads (piscina), off the event loop that
 * serves the API and the consumers. Under ts-jest the worker's TypeScript cannot be
 * loaded by a thread, so the tests that start the service in-process run the tasks on
 * the event loop; the process-spawning tests (crash, multi-process) run the built code
 * and so the threads. CPU_WORKER_THREADS=0 chooses the event loop too.
 */
@Injectable()
export class CpuWork implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly pool: Piscina | null;
  private readonly logger = new Logger(CpuWork.name);
  private stopReporting: () => void = () => undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {
    const workerFile = join(__dirname, 'cpu-task-worker.js');
    const withThreads = threadsCanLoadThisCode() && config.cpuWork.threads > 0;
    // Before the pool: V8 reads these flags as each thread's isolate is made (cpu-work.unit.spec.ts).
    if (withThreads) {
      letThreadsSizeTheirHeaps();
      letThreadsOptimiseOnTheirOwnThread();
      turnOffAllocationSitePretenuring();
      letThreadsCollectWhenIdle();
    }
    this.pool = withThreads
      ? new Piscina({
          filename: workerFile,
          minThreads: 0,
          maxThreads: config.cpuWork.threads,
          // A thread that sits idle gives its memory back.
          idleTimeout: 30_000,
          // An idle thread waits for its next task with its event loop turning, not in Atomics.wait: the collection
          // after a task's answer runs there (thread-idle-collection.ts).
          atomics: 'disabled',
          // Both generations capped: the threads' heaps add to the process's resident memory,
          // which must stay under 256 MB (docs/files.md, "Memory"). The young generation is
          // where a file's per-row garbage dies: with batches of 500 rows (BATCH_ROWS; fewer when wide) 16 MB
          // collects less than 32 MB did with 2,000, and two threads of 32 MB went over 256 MB
          // (bench/README.md, "Two threads by default").
          resourceLimits: { maxOldGenerationSizeMb: config.cpuWork.heapMb, maxYoungGenerationSizeMb: config.cpuWork.youngMb },
        })
      : null;
  }

  /** Threads the tasks run on at once: none without a pool (the tasks then take turns on the event loop). */
  get threads(): number {
    return this.pool ? this.config.cpuWork.threads : 0;
  }

  /** Tasks waiting for a thread (none without a pool: the event loop takes every task at once). */
  get waiting(): number {
    return this.pool?.queueSize ?? 0;
  }

  /** Threads started now, at work or idle (none without a pool). */
  get started(): number {
    return this.pool?.threads.length ?? 0;
  }

  /**
   * Starts up to `threads` threads ahead of work that is on its way (a big upload has begun), so
   * that work does not wait for them: a thread takes about 0.2 s to start and load the tasks'
   * code, which an upload of several seconds hides. Threads already started count; nothing is
   * started without a pool. A thread that gets no work ends after the pool's idle timeout.
   */
  warm(threads: number): void {
    for (let i = this.started; i < Math.min(threads, this.threads); i++)
      // Queued at once, so the pool starts a thread for each rather than one after the other.
      this.run('warm', undefined).catch((err: Error) => this.logger.warn(`A file-work thread did not start: ${err.message}`));
  }

  async run<N extends CpuTaskName>(name: N, input: CpuTaskInput<N>, options: CpuTaskOptions = {}): Promise<CpuTaskResult<N>> {
    let recorded: Promise<unknown> = Promise.resolve();
    const onProgress = (rows: number) => {
      const hear = options.onProgress;
      if (hear)
        recorded = recorded
          .then(() => hear(rows))
          .catch((err: Error) => this.logger.warn(`${name}: progress not recorded: ${err.message}`));
    };
    try {
      return await this.execute(name, input, onProgress, options);
    } finally {
      await recorded;
    }
  }

  private async execute<N extends CpuTaskName>(
    name: N,
    input: CpuTaskInput<N>,
    onProgress: (rows: number) => void,
    { signal, moveInput, ports = [] }: CpuTaskOptions,
  ): Promise<CpuTaskResult<N>> {
    if (!this.pool) {
      const task = CPU_TASKS[name] as (i: unknown, env: unknown, p: (n: number) => void, s?: AbortSignal) => Promise<CpuTaskResult<N>>;
      return task(input, { blobs: this.blobs, config: this.config }, onProgress, signal);
    }
    const { port1, port2 } = new MessageChannel();
    let started = false;
    const heard = (m: number | string) => (isStartAnnouncement(m) ? (started = true) : onProgress(m as number));
    port1.on('message', heard);
    const message: CpuTaskMessage = { name, input, config: this.config, progress: port2 };
    // For a task that stops itself, piscina's signal only takes the task out of the queue; a running task is told to stop.
    const dequeue = STOPS_ITSELF.has(name) && signal ? new AbortController() : null;
    const stopListening = dequeue ? relayStop(signal!, port1, () => started, dequeue) : () => undefined;
    try {
      // piscina types its transfer list with the DOM's MessagePort; Node's is what it transfers.
      const transferList = [port2, ...ports, ...(moveInput ? buffersIn(input) : [])] as never[];
      return (await this.pool.run(message, { transferList, signal: dequeue ? dequeue.signal : (signal ?? null) })) as CpuTaskResult<N>;
    } catch (err) {
      // A task that stopped when told answers an AbortError that crossing the thread leaves empty: the caller's reason instead.
      if (dequeue && signal!.aborted) throw signal!.reason;
      throw revivedBlobError(err);
    } finally {
      stopListening();
      // The task's last figures may still be in the port (posted just before its answer): heard before it closes.
      for (let m = receiveMessageOnPort(port1); m !== undefined; m = receiveMessageOnPort(port1)) heard(m.message as number | string);
      port1.close();
    }
  }

  onModuleInit(): void {
    this.stopReporting = fileWorkThreads.addSource(() => Promise.resolve([{ labels: {}, value: this.started }]));
  }

  onModuleDestroy(): void {
    this.stopReporting();
  }

  /**
   * After the run-events transport has stopped (Nest closes it between the destroy and the
   * shutdown hooks): a handler still writing an output when the process is asked to stop
   * finishes with its thread instead of losing it and failing the run.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.pool?.destroy();
  }
}
