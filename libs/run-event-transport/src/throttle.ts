/** Calls `fn` at most once per `intervalMs` (progress reporting). */
export function throttle(intervalMs: number): (fn: () => Promise<unknown>) => Promise<void> {
  let last = Date.now();
  return async (fn) => {
    if (Date.now() - last < intervalMs) return;
    last = Date.now();
    await fn();
  };
}
