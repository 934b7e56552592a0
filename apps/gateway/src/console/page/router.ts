import { useEffect, useState } from 'preact/hooks';

/**
 * What a page with unsaved changes says before it is left (null: nothing to lose). A link of the console and the
 * browser's Back and Forward ask with the browser's own confirmation (keyboard and screen readers know it); reloading
 * or closing the tab, with the browser's "leave site?" (which shows its own words).
 */
let leaveWarning: string | null = null;
export const setLeaveWarning = (text: string | null): void => {
  leaveWarning = text;
};
addEventListener('beforeunload', (event) => {
  if (leaveWarning === null) return;
  event.preventDefault();
  event.returnValue = ''; // Chrome before 119 and Safari ask only when it is set
});

/** Where the console is: its path and query. Links change it without reloading the page (history API). */
const listeners = new Set<() => void>();
const here = (): string => location.pathname + location.search + location.hash;
/** The address of the page on screen: where Back or Forward returns to when its person chooses to stay. */
let shown = here();

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  shown = here();
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

// Back and Forward ask too. The browser has already moved through its history when it says so, so staying puts the
// page's own address back in place of the one moved to (the page itself was never redrawn).
// A move within the page (the skip link's #main) leaves nothing and asks nothing.
const withoutHash = (href: string): string => href.replace(/#.*$/, '');
addEventListener('popstate', () => {
  const leaving = withoutHash(here()) !== withoutHash(shown);
  if (leaving && leaveWarning !== null && !window.confirm(leaveWarning)) {
    history.pushState(null, '', shown);
    return;
  }
  if (leaving) leaveWarning = null;
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
  if (leaveWarning !== null && !window.confirm(leaveWarning)) return false;
  leaveWarning = null;
  navigate(href);
  return true;
}
