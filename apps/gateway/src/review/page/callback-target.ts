import type { ReviewView } from './types';

const RUN_PARAM = 'transformation_id';

/**
 * Where a closed review sends the reviewer back to: its callback (http or https only), with the run's id
 * added to the query. The callback's own query is kept as written: `URLSearchParams.set` wrote the whole
 * query again in form encoding (`a%20b` as `a+b`, `flag` as `flag=`, `~` as `%7E`, `;` as `%3B`), which
 * breaks a callback whose query the customer signed or reads as written. Only a `transformation_id` it
 * already held is dropped, so the run's id is the one the page reads.
 */
export function callbackTarget(view: Pick<ReviewView, 'phase' | 'run_id' | 'success_callback' | 'cancel_callback'>): URL | null {
  const callback = view.phase === 'approved' ? view.success_callback : view.phase === 'canceled' ? view.cancel_callback : null;
  let target: URL;
  try {
    target = new URL(callback ?? '');
  } catch {
    return null;
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
  const kept =
    target.search.length > 1
      ? target.search
          .slice(1)
          .split('&')
          .filter((pair) => !namesRunParam(pair))
      : [];
  target.search = [...kept, `${RUN_PARAM}=${encodeURIComponent(view.run_id)}`].join('&');
  return target;
}

/** Whether a `name=value` pair of a query is named `transformation_id` (read as a form would: `+` and `%xx` decoded). */
function namesRunParam(pair: string): boolean {
  return new URLSearchParams(pair).keys().next().value === RUN_PARAM;
}
