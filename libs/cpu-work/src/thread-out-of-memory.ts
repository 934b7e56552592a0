/**
 * Whether a file-work task failed because its thread reached its heap's limit (CPU_WORKER_HEAP_MB): Node ends the
 * thread and piscina rejects the task with Node's own error. The file is not at fault as a storage failure would be,
 * and trying again meets the same limit, so the run fails with a code that says so (transformation_out_of_memory).
 */
export function isThreadOutOfMemory(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}
