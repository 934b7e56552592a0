/**
 * `batches`, whose `return` before a first `next` also runs `release`. A generator given up
 * unstarted never runs, so the `finally` in it that closes what its reader opened (a file, a
 * workbook's package, an S3 GET) never does either: an output whose put was refused before it
 * read a byte left its source open until the process ended. Once started, the generator's own
 * `finally` closes it, and `release` is not run.
 */
export function releasedUnstarted<T>(batches: AsyncGenerator<T>, release: () => unknown): AsyncGenerator<T> {
  let started = false;
  const next = batches.next.bind(batches);
  const giveUp = batches.return.bind(batches);
  batches.next = (...args) => {
    started = true;
    return next(...args);
  };
  batches.return = async (value) => {
    if (started) return giveUp(value);
    started = true;
    try {
      await release();
    } catch (err) {
      // Whatever the release met, the generator is marked done: a later next() reads nothing.
      await giveUp(value);
      throw err;
    }
    return giveUp(value);
  };
  return batches;
}
