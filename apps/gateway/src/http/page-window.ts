/** Pages shown on each side of the current one in `meta.links`, as Laravel's paginator shows them (`onEachSide`). */
export const PAGES_ON_EACH_SIDE = 3;

/** A gap between the pages listed: Laravel's "..." entry. */
export const GAP = null;

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * The pages `meta.links` lists, with GAP where pages are left out, as Laravel's UrlWindow chooses
 * them: every page of a short list (fewer than 14 pages with 3 on each side); else the first two
 * and the last two, around the current page and the 3 on each side of it, or, near either end,
 * the 10 pages at that end. A list of a million runs at one a page would otherwise answer a
 * million links on every page. Pure.
 */
export function pageWindow(current: number, lastPage: number, onEachSide = PAGES_ON_EACH_SIDE): Array<number | typeof GAP> {
  if (lastPage < onEachSide * 2 + 8) return range(1, lastPage);
  const window = onEachSide + 4;
  const start = range(1, 2);
  const finish = range(lastPage - 1, lastPage);
  if (current <= window) return [...range(1, window + onEachSide), GAP, ...finish];
  if (current > lastPage - window) return [...start, GAP, ...range(lastPage - (window + onEachSide - 1), lastPage)];
  return [...start, GAP, ...range(current - onEachSide, current + onEachSide), GAP, ...finish];
}
