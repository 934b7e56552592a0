import type { BlobStore } from '@app/blob-storage/blob-store.port';
import { UrlSigner } from '@app/blob-storage/url-signer';
import { openBlobStore } from '@app/blob-storage/open-blob-store';
import { CPU_TASKS, MOVED_RESULTS, type CpuTaskMessage } from './cpu-tasks';
import { movedResult } from './moved-buffers';
import { progressPoster, type ProgressPoster } from './progress-posts';
import { announceStart, stopSignalOf } from './task-stop';
import { CollectionBetweenTasks } from './thread-idle-collection';
import { yieldCpuToOtherThreads } from './thread-priority';

/**
 * Entry point of a worker thread (piscina): runs one CPU task per message. The blob store
 * is opened once per thread, from the same configuration as the process that sent it.
 */
let blobs: BlobStore | undefined;
const collection = new CollectionBetweenTasks();

// The file work yields the CPU to the event loop that answers the API, so the API's requests keep
// their latency while an output is written, and the work still takes whatever CPU is free.
yieldCpuToOtherThreads();

export default async function runCpuTask({ name, input, config, progress }: CpuTaskMessage): Promise<unknown> {
  // The secret arrives as a Uint8Array (structured clone does not keep Buffer).
  blobs ??= openBlobStore(config, new UrlSigner(Buffer.from(config.signingSecret)));
  const task = CPU_TASKS[name] as (input: unknown, env: unknown, progress: (n: number) => void, stop: AbortSignal) => Promise<unknown>;
  let rows: ProgressPoster | undefined;
  collection.taskStarts();
  try {
    // Only a task of STOPS_ITSELF is ever told to stop (CpuWork); the others are ended with their thread.
    const stop = stopSignalOf(progress);
    announceStart(progress);
    rows = progressPoster(progress);
    const result = await task(input, { blobs, config }, (n) => rows?.post(n), stop);
    rows.flush();
    return MOVED_RESULTS.has(name) ? movedResult(result) : result;
  } finally {
    // The thread may wait long for its next task: what this one left, its answer too, is collected once it is sent.
    collection.taskEnded();
    rows?.stop();
    progress.close();
  }
}
