import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import type { RunState } from '@app/domain';
import { inspectStructuredFile } from '@app/run-source';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { CPU_TASKS, MOVED_RESULTS, STOPS_ITSELF, type CpuTaskName } from '../cpu-tasks';
import type { CpuTaskOptions, CpuWork } from '../cpu-work';
import { buffersIn } from '../moved-buffers';

export interface CpuCall {
  name: CpuTaskName;
  input: Record<string, unknown>;
  /** Whether the call could be stopped (a signal), and whether the task is told in its thread (STOPS_ITSELF) rather than ended with it. */
  stop?: { signal: boolean; stopsItself: boolean };
}

/**
 * A CpuWork whose tasks run here, reporting `threads` threads: inputs and results pass through
 * structured clone as between threads, typed arrays moved where CpuWork moves them (a moved
 * array is empty for its sender afterwards, so a sender that still used one would fail), and
 * progress is heard as the pool would pass it on.
 */
export function inProcessCpu(blobs: BlobStore, threads: number): { cpu: CpuWork; calls: CpuCall[] } {
  const calls: CpuCall[] = [];
  const cpu = {
    threads,
    waiting: 0,
    // Recorded as a call: no thread is started here.
    warm: (count: number) => void calls.push({ name: 'warm', input: { threads: count } }),
    run: async (name: CpuTaskName, input: Record<string, unknown>, options: CpuTaskOptions = {}) => {
      calls.push({ name, input, stop: { signal: options.signal !== undefined, stopsItself: STOPS_ITSELF.has(name) } });
      const task = CPU_TASKS[name] as (i: unknown, env: unknown, progress: (n: number) => void, signal?: AbortSignal) => Promise<unknown>;
      const sent = structuredClone(input, { transfer: [...(options.ports ?? []), ...(options.moveInput ? buffersIn(input) : [])] });
      const result = await task(
        sent,
        { blobs, config: { tableLimits: DEFAULT_TABLE_LIMITS } as AppConfig },
        (n) => void options.onProgress?.(n),
        options.signal,
      );
      return structuredClone(result, { transfer: MOVED_RESULTS.has(name) ? buffersIn(result) : [] });
    },
  } as unknown as CpuWork;
  return { cpu, calls };
}

/** A delimited file stored at `key` and ingested as a run of `schema`: its rows counted and its row index stored. */
export async function ingestedRun(
  blobs: BlobStore,
  key: string,
  text: string,
  schema: Pick<RunState['schema'], 'fields' | 'unique_with'>,
): Promise<RunState> {
  await blobs.put(key, Readable.from([Buffer.from(text)]));
  const base = { id: key, filename: 'input.csv', schema, source_key: key, rows_key: key } as unknown as RunState;
  const outcome = await inspectStructuredFile(blobs, base, DEFAULT_TABLE_LIMITS, () => undefined);
  if (!('parsed' in outcome)) throw new Error(`not parsed: ${JSON.stringify(outcome)}`);
  return { ...base, ...outcome.parsed, output_format: 'json' };
}
