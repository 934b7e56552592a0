/**
 * One task per item at once, all their results in order; when one fails, the others are aborted
 * (their threads freed for other work) and the first failure is thrown. `outer` aborts them all.
 */
export async function allOrNone<T, R>(
  items: readonly T[],
  start: (item: T, signal: AbortSignal, index: number) => Promise<R>,
  outer?: AbortSignal,
): Promise<R[]> {
  const failed = new AbortController();
  const signal = outer ? AbortSignal.any([outer, failed.signal]) : failed.signal;
  return Promise.all(
    items.map((item, index) =>
      start(item, signal, index).catch((err: unknown) => {
        failed.abort();
        throw err;
      }),
    ),
  );
}
