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
