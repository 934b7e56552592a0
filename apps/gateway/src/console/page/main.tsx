/*
 * The customer console in the browser (docs/console.md): Preact components (./components), one per
 * part of a page, bundled by esbuild (scripts/build-review-page.js); nothing fetched from elsewhere.
 * Every call goes to /console/api with the session cookie and, for changes, the CSRF token. Text
 * comes from the catalog the server embedded in #console-boot; values only reach the DOM as text.
 */
import { render } from 'preact';
import { App } from './components/app';
import { clearStatus } from './components/status';
import { onLinkClick } from './router';

document.addEventListener('click', (event) => {
  // Another page by the member's choice: the last action's message belonged to the page they left (not when they
  // chose to stay on a form with changes not saved).
  // A link a page's own handler took (prevented before this listener) is another page too.
  const takenByPage = event.defaultPrevented && Boolean((event.target as Element | null)?.closest?.('a'));
  if (onLinkClick(event) || takenByPage) clearStatus();
});
const root = document.getElementById('app') as HTMLElement;
root.textContent = ''; // the server's "Loading…" placeholder
render(<App />, root);
