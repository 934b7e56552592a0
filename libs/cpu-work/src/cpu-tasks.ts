import type { MessagePort } from 'node:worker_threads';
import type { BlobStore } from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import type { MappingRule } from '@app/contracts';
import type { DuplicateRows, RunState } from '@app/domain';
import {
  countMappingProblems,
  distinctFieldValues,
  duplicateRowsOf,
  firstDuplicatesPass,
  findProblemRows,
  inspectStructuredFile,
  readReviewCell,
  scanArrivingSource,
  scanSourceFirstPart,
  scanSourceLaterPart,
  sourceEncodingPastAscii,
  writeOutputPart,
  writeRunOutput,
  type FirstPass,
  type RowRange,
  type SourceChoice,
  type ProblemRowsQuery,
} from '@app/run-source';

/** What a task has beside its input: the stores it reads and writes, opened once per thread. */
export interface TaskEnvironment {
  blobs: BlobStore;
  config: AppConfig;
}

/**
 * The CPU-heavy steps, each a whole file streamed through a parser: they run in a worker
 * thread so the process's event loop (the API, the consumers) stays responsive. Inputs and
 * results cross the thread boundary by structured clone: plain data only.
 */
export const CPU_TASKS = {
  /** Nothing: a thread started for it has loaded every task's code and is ready (CpuWork.warm). */
  warm: () => Promise.resolve(null),
  /** With `sheet`: that worksheet of the run's workbook, read again for the reviewer's choice. */
  inspectStructuredFile: (input: { run: RunState } & SourceChoice, env: TaskEnvironment, progress: (rows: number) => void) =>
    inspectStructuredFile(env.blobs, input.run, env.config.tableLimits, progress, { sheet: input.sheet, encoding: input.encoding }),
  /** The code page of a text file read as UTF-8 from its ASCII head and refused further on (SourceInspector reads it again in it). */
  sourceEncodingPastAscii: (input: { run: RunState }, env: TaskEnvironment) => sourceEncodingPastAscii(env.blobs, input.run),
  /**
   * A big delimited source's two parts, scanned at once on two threads (SourceInspector); each works out the split
   * itself. With `encoding`: read in it (a reviewer's choice, or the code page past an ASCII head).
   */
  scanSourceFirstPart: (input: { run: RunState; encoding?: string }, env: TaskEnvironment, progress: (rows: number) => void) =>
    scanSourceFirstPart(env.blobs, input.run, env.config.tableLimits, progress, input.encoding),
  scanSourceLaterPart: (input: { run: RunState; encoding?: string }, env: TaskEnvironment, progress: (rows: number) => void) =>
    scanSourceLaterPart(env.blobs, input.run, env.config.tableLimits, progress, input.encoding),
  /** A delimited source scanned as its bytes arrive over `bytes` (ArrivingScans): the port moves to the thread. */
  scanArrivingSource: (input: { run: RunState; bytes: MessagePort }, env: TaskEnvironment, progress: (rows: number) => void) =>
    scanArrivingSource(input.bytes, env.blobs, input.run, env.config.tableLimits, progress),
  /** `maxBytes`: the output's limit (apps/output/src/output-limit.ts); past it nothing is kept (BlobTooLargeError). */
  writeRunOutput: (
    input: { run: RunState; key: string; duplicates?: DuplicateRows | null; maxBytes?: number },
    env: TaskEnvironment,
    progress: (rows: number) => void,
  ) => writeRunOutput(env.blobs, input.run, input.key, progress, input),
  /** Stops itself when told (STOPS_ITSELF), keeping nothing: its thread carries on. */
  writeOutputPart: (
    input: { run: RunState; key: string; range: RowRange; duplicates?: DuplicateRows | null; maxBytes?: number },
    env: TaskEnvironment,
    progress: (rows: number) => void,
    signal?: AbortSignal,
  ) => writeOutputPart(env.blobs, input.run, input.key, input.range, progress, { ...input, signal }),
  /** With `range`: those rows only, one thread's part of a count joined by ProblemCounter. Stops itself when told (superseded). */
  countMappingProblems: (
    input: { run: RunState; mapping: MappingRule; duplicates?: DuplicateRows | null; range?: RowRange },
    env: TaskEnvironment,
    progress: (n: number) => void,
    signal?: AbortSignal,
  ) => countMappingProblems(env.blobs, input.run, input.mapping, signal, progress, input.duplicates ?? null, input.range),
  findProblemRows: (
    input: { run: RunState; mapping: MappingRule; query: ProblemRowsQuery; duplicates?: DuplicateRows | null },
    env: TaskEnvironment,
    _progress: (n: number) => void,
    signal?: AbortSignal,
  ) => findProblemRows(env.blobs, input.run, input.mapping, input.query, signal, input.duplicates ?? null),
  /**
   * The rows whose values repeat where the schema asks for unique ones: run first, its answer goes
   * into the tasks above. `firstPasses`: its first pass, read by other threads over ranges of the file.
   */
  findDuplicateRows: (
    input: { run: RunState; mapping: MappingRule; firstPasses?: FirstPass[] },
    env: TaskEnvironment,
    progress: (n: number) => void,
    signal?: AbortSignal,
  ) => duplicateRowsOf(env.blobs, input.run, input.mapping, signal, progress, input.firstPasses),
  /** The duplicates pass's first read over a range of the file, for findDuplicateRows (DuplicateRowsFinder). Stops itself when told. */
  duplicatesFirstPass: (
    input: { run: RunState; mapping: MappingRule; range: RowRange },
    env: TaskEnvironment,
    progress: (n: number) => void,
    signal?: AbortSignal,
  ) => firstDuplicatesPass(env.blobs, input.run, input.mapping, input.range, signal, progress),
  /** One cell, for a cell fix to be checked against (a workbook is read up to its row). */
  readReviewCell: (input: { run: RunState; field: string; row: number }, env: TaskEnvironment) =>
    readReviewCell(env.blobs, input.run, input.field, input.row),
  distinctFieldValues: (
    input: { run: RunState; mapping: MappingRule; field: string },
    env: TaskEnvironment,
    _progress: (n: number) => void,
    signal?: AbortSignal,
  ) => distinctFieldValues(env.blobs, input.run, input.mapping, input.field, signal),
};

export type CpuTaskName = keyof typeof CPU_TASKS;

/**
 * The tasks that stop themselves when their signal aborts (CpuWork.run): they look at it between
 * batches and clean up after themselves, so their thread carries on. A stop asked of any other task
 * ends its thread (piscina), which is what a task that never looks at its signal needs.
 */
export const STOPS_ITSELF: ReadonlySet<CpuTaskName> = new Set<CpuTaskName>([
  'writeOutputPart',
  'countMappingProblems',
  'duplicatesFirstPass',
]);

/**
 * The tasks whose results' typed arrays are moved to the asking thread, not copied: per-row
 * numbers and bits a result owns alone (a first pass: 8 bytes per row and set; a count: its page
 * segments and a byte per row).
 */
export const MOVED_RESULTS: ReadonlySet<CpuTaskName> = new Set<CpuTaskName>([
  'duplicatesFirstPass',
  'findDuplicateRows',
  'countMappingProblems',
]);
export type CpuTaskInput<N extends CpuTaskName> = Parameters<(typeof CPU_TASKS)[N]>[0];
export type CpuTaskResult<N extends CpuTaskName> = Awaited<ReturnType<(typeof CPU_TASKS)[N]>>;

/** The message a worker thread receives for one task. */
export interface CpuTaskMessage {
  name: CpuTaskName;
  input: unknown;
  config: AppConfig;
  /** Where the task posts its progress (rows so far) and its thread announces it took the task up; where the caller tells it to stop (task-stop.ts). */
  progress: MessagePort;
}
