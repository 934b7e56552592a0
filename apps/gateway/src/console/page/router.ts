import { useEffect, useState } from 'preact/hooks';

/** Where the console is: its path and query. Links change it without reloading the page (history API). */
const listeners = new Set<() => void>();

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

addEventListener('popstate', () => listeners.forEach((l) => l()));

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

/** Clicks on the console's own links stay in the page (a modified click still opens a new tab). */
export function onLinkClick(event: MouseEvent): void {
  const a = (event.target as Element | null)?.closest?.('a');
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = a.getAttribute('href');
  if (!href || !href.startsWith('/console') || a.target || a.hasAttribute('download')) return;
  event.preventDefault();
  navigate(href);
}
