import { useRef, useState } from 'preact/hooks';

/**
 * An action a button starts (a call to the API). While it runs, pressing again does nothing,
 * so a double click or a second Enter cannot issue two keys or send two invitations, and
 * `busy` lets the button say so with aria-disabled: not `disabled`, which would drop the
 * focus to the page's body, away from where a keyboard user left it.
 */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): { busy: boolean; run: (...args: A) => Promise<void> } {
  const running = useRef(false);
  const [busy, setBusy] = useState(false);
  const run = async (...args: A) => {
    // The ref, not the state: a second press may come before the first one's render.
    if (running.current) return;
    running.current = true;
    setBusy(true);
    try {
      await action(...args);
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  return { busy, run };
}

/**
 * `useAction` for a button on each row of a list (test a provider, send a delivery again): each
 * row's action runs once at a time, and only its own button waits, not every row's.
 */
export function useRowAction<T>(
  keyOf: (row: T) => string,
  action: (row: T) => Promise<void>,
): { isBusy: (row: T) => boolean; run: (row: T) => Promise<void> } {
  const running = useRef(new Set<string>());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const run = async (row: T) => {
    const key = keyOf(row);
    if (running.current.has(key)) return;
    running.current.add(key);
    setBusy(new Set(running.current));
    try {
      await action(row);
    } finally {
      running.current.delete(key);
      setBusy(new Set(running.current));
    }
  };
  return { isBusy: (row) => busy.has(keyOf(row)), run };
}
