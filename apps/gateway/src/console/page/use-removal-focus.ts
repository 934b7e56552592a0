import { useLayoutEffect, useRef } from 'preact/hooks';

/** A removal older than this whose list was not drawn again no longer moves the focus. */
const STALE_AFTER_MS = 10_000;

/**
 * Where the focus goes when a row leaves a list (a key revoked, a member removed, a provider
 * deleted, a field taken out of a schema). The button that was pressed goes with its row once the
 * list is drawn again, and the browser would drop the focus to the page's body, where a keyboard or
 * screen-reader user loses their place. One rule for every list: the same control on the next row,
 * else on the nearest row before it, else the list's heading (`heading`, which needs tabIndex=-1).
 *
 * `rows` is the list as drawn, `controlId(row)` the id of a row's control (a row drawn without one,
 * e.g. a key already revoked, is passed over). Call `removed(row)` once the removal succeeded and
 * before the list changes: the focus moves when the changed list has been drawn.
 */
export function useRemovalFocus<T>(rows: readonly T[] | undefined, controlId: (row: T) => string) {
  const heading = useRef<HTMLHeadingElement>(null);
  const candidates = useRef<{ ids: string[]; at: number } | null>(null);
  useLayoutEffect(() => {
    const pending = candidates.current;
    if (!pending) return;
    candidates.current = null;
    // A removal whose list was not read again in time (the read failed) does not move the focus at a later, unrelated change.
    if (Date.now() - pending.at > STALE_AFTER_MS) return;
    const ids = pending.ids;
    // Only when the focus was lost with the row: someone who moved on meanwhile keeps their place.
    if (document.activeElement && document.activeElement !== document.body) return;
    const target = ids.map((id) => document.getElementById(id)).find((el) => el !== null) ?? heading.current;
    target?.focus();
  }, [rows]);
  const removed = (row: T) => {
    const list = rows ?? [];
    const at = list.findIndex((r) => controlId(r) === controlId(row));
    const after = list.slice(at + 1);
    const before = list.slice(0, Math.max(at, 0)).reverse();
    candidates.current = { ids: [...after, ...before].map(controlId), at: Date.now() };
  };
  return { heading, removed };
}
