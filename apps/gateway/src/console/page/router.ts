import { useEffect, useLayoutEffect, useState } from 'preact/hooks';

/**
 * What a page with unsaved changes says before it is left (null: nothing to lose). A link of the console and the
 * browser's Back and Forward ask with the browser's own confirmation (keyboard and screen readers know it); reloading
 * or closing the tab, with the browser's "leave site?" (which shows its own words).
 */
let leaveWarning: string | null = null;

/**
 * Makes `text` the page's leave warning while the page is drawn (null: nothing to lose). Set as the change is drawn
 * (a layout effect), not after the next frame, so Back pressed at once after typing asks too; gone with the page.
 */
export function useLeaveWarning(text: string | null): void {
  useLayoutEffect(() => {
    leaveWarning = text;
  }, [text]);
  useEffect(
    () => () => {
      leaveWarning = null;
    },
    [],
  );
}
/** Whether the page may be left (by a link, or by signing out): asks when it has something to lose. */
export function mayLeave(): boolean {
  if (leaveWarning !== null && !window.confirm(leaveWarning)) return false;
  leaveWarning = null;
  return true;
}
addEventListener('beforeunload', (event) => {
  if (leaveWarning === null) return;
  event.preventDefault();
  event.returnValue = ''; // Chrome before 119 and Safari ask only when it is set
});

/** Where the console is: its path and query. Links change it without reloading the page (history API). */
const listeners = new Set<() => void>();
const here = (): string => location.pathname + location.search + location.hash;
/** The address of the page on screen. */
let shown = here();

/**
 * Each history entry of the console is numbered in its state (`{i}`), so that a Back or Forward its person takes back
 * can be undone by moving the same number of steps the other way (`history.go`): that keeps every entry, where pushing
 * the old address again would cut off the entries ahead (and Chrome skips entries pushed without a click when Back is
 * pressed). A reload keeps the number.
 */
const entryOf = (state: unknown): number | null => {
  const i = (state as { i?: unknown } | null)?.i;
  return typeof i === 'number' ? i : null;
};
let entry = entryOf(history.state) ?? 0;
history.replaceState({ ...(history.state as object | null), i: entry }, '');
/** Set while a move taken back is on its way: its popstate is ours. */
let returning = false;

export function navigate(href: string, replace = false): void {
  if (!replace) entry += 1;
  if (replace) history.replaceState({ i: entry }, '', href);
  else history.pushState({ i: entry }, '', href);
  shown = here();
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

// Back and Forward ask too. The browser has already moved through its history when the page hears of it, so staying
// moves back to the entry the page is drawn from (the page itself was never redrawn). A move within the page (the
// skip link's #main) leaves nothing and asks nothing.
const withoutHash = (href: string): string => href.replace(/#.*$/, '');
addEventListener('popstate', (event) => {
  if (returning) {
    returning = false;
    return;
  }
  const to = entryOf(event.state);
  if (to === null) {
    // A new entry the browser made for a link within the page: numbered as the next one.
    entry += 1;
    history.replaceState({ ...(event.state as object | null), i: entry }, '');
    shown = here();
    return;
  }
  const leaving = withoutHash(here()) !== withoutHash(shown);
  if (leaving && leaveWarning !== null && to !== entry && !window.confirm(leaveWarning)) {
    returning = true;
    history.go(entry - to);
    return;
  }
  if (leaving) leaveWarning = null;
  entry = to;
  shown = here();
  listeners.forEach((l) => l());
});

export interface Location {
  path: string;
  query: URLSearchParams;
}

const current = (): Location => ({
  path: location.pathname.replace(/\/+$/, '') || '/console',
  query: new URLSearchParams(location.search),
});

/** The current location, redrawn when it changes. */
export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return loc;
}

/**
 * Clicks on the console's own links stay in the page (a modified click still opens a new tab). Returns whether the
 * click went to another page of the console.
 */
export function onLinkClick(event: MouseEvent): boolean {
  const a = (event.target as Element | null)?.closest?.('a');
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  const href = a.getAttribute('href');
  if (!href || !href.startsWith('/console') || a.target || a.hasAttribute('download')) return false;
  event.preventDefault();
  if (!mayLeave()) return false;
  navigate(href);
  return true;
}
