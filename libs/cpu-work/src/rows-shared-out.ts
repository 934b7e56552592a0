import { Logger } from '@nestjs/common';
import { cutAfter, newRangeEnd, rangeNow, type RangeEnd, type RowRange } from '@app/run-source';
import { whereToCut } from './where-to-cut';

/** One task's share of a file's rows (`range`, with its shared end) and how to hear its rows read so far. */
export type RowsTask<R> = (range: RowRange, signal: AbortSignal, onRows: (rows: number) => unknown) => Promise<R>;

interface Share<R> {
  fromRow: number;
  toRow: number | null;
  end: RangeEnd;
  startedAt: number;
  done: { result: R } | null;
}

const logger = new Logger('RowsSharedOut');

/**
 * Runs `task` over each of `ranges` at once (one per thread), and whenever one ends while
 * another still has enough rows left, cuts that one short and runs `task` over its last rows
 * too, on the thread just freed (where-to-cut.ts says when and where; the two threads agree
 * through the range's shared end, range-end.ts). Two halves seldom end together: one thread is
 * slowed more than the other by the API and the rest of the machine.
 *
 * Answers every share with its result, in row order, each range as it ended. `onRows` hears the
 * rows read so far, all shares together. When a task fails, or `signal` aborts, the others are
 * aborted, every task's promise is waited for, and the failure is thrown. (With a thread pool an
 * aborted task's thread may still be ending when its promise has settled: a caller removing what
 * the tasks wrote does so as well as it can.) `label` names the work in log lines.
 */
export async function shareRowsOut<R>(
  ranges: RowRange[],
  totalRows: number,
  task: RowsTask<R>,
  { signal: outer, onRows, label = 'rows' }: { signal?: AbortSignal; onRows?: (rows: number) => unknown; label?: string } = {},
): Promise<Array<{ range: RowRange; result: R }>> {
  const shares: Share<R>[] = [];
  const read = new Map<Share<R>, number>();
  const failed = new AbortController();
  const signal = outer ? AbortSignal.any([outer, failed.signal]) : failed.signal;
  let failure: { error: unknown } | null = null;
  const lastRowOf = (toRow: number | null) => toRow ?? totalRows;

  const start = (fromRow: number, toRow: number | null): Promise<void> => {
    const share: Share<R> = { fromRow, toRow, end: newRangeEnd(fromRow, toRow), startedAt: Date.now(), done: null };
    shares.push(share);
    const heard = (rows: number) => {
      read.set(share, rows);
      let sum = 0;
      for (const n of read.values()) sum += n;
      return onRows?.(sum);
    };
    return (
      Promise.resolve()
        .then(() => {
          signal.throwIfAborted();
          return task({ fromRow, toRow, end: share.end }, signal, heard);
        })
        .then((result) => {
          share.done = { result };
          logger.debug(`${label}: rows ${fromRow} to ${share.toRow ?? 'the end'} done in ${Date.now() - share.startedAt} ms`);
          if (!failure && !signal.aborted) return takeOver();
        })
        // After the task's outcome, so a throw while cutting another share (a policy's bad row) fails
        // the whole as a task's failure does: the others aborted and waited for.
        .catch((error: unknown) => {
          failure ??= { error };
          failed.abort();
        })
    );
  };

  /** The thread just freed takes the last rows of the share with the most left, when that is worth it. */
  const takeOver = (): Promise<void> | undefined => {
    let longest: Share<R> | null = null;
    let most = 0;
    for (const share of shares) {
      if (share.done) continue;
      const now = rangeNow(share.end);
      const left = lastRowOf(now.lastRow) - now.claimed;
      if (left > most) [longest, most] = [share, left];
    }
    if (!longest) return;
    const share = longest;
    const seconds = (Date.now() - share.startedAt) / 1000;
    const cut = cutAfter(share.end, (now) =>
      whereToCut({ fromRow: share.fromRow, claimed: now.claimed, lastRow: lastRowOf(now.lastRow), seconds }),
    );
    if (cut === null) return;
    const rest = share.toRow;
    share.toRow = cut;
    logger.debug(`${label}: the rows after ${cut} move to a free thread`);
    return start(cut + 1, rest);
  };

  await Promise.all(ranges.map((range) => start(range.fromRow, range.toRow)));
  if (failure) throw (failure as { error: unknown }).error;
  // Every task answered, yet the caller gave up meanwhile: as a task that saw the abort would have.
  outer?.throwIfAborted();
  return shares
    .sort((a, b) => a.fromRow - b.fromRow)
    .map((share) => ({ range: { fromRow: share.fromRow, toRow: share.toRow }, result: share.done!.result }));
}
