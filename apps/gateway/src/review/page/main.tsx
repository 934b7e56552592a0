/*
 * The hosted review page, in the browser: Preact components (./components) drawn from the page's
 * state (./state.ts), bundled by esbuild (scripts/build-review-page.js); nothing fetched from
 * elsewhere. Every call goes to /review/:id/... with the link's signature. Text comes from the
 * catalog the server embedded in #review-boot; values from the file only ever reach the DOM as
 * text (Preact makes text nodes of strings; nothing is parsed as HTML).
 */
import { render } from 'preact';
import { App } from './components/app';
import { formatDate, t } from './i18n';
import { load, onChange, type State } from './state';

const main = document.getElementById('main') as HTMLElement;
const summary = document.getElementById('summary') as HTMLElement;

/** The file, its rows and encoding, and until when the review is open: only what the state in view may tell. */
function summaryText({ screen, view }: State): string {
  if (screen === 'invalid' || screen === 'unreachable' || !view) return '';
  const parts = [];
  if (view.filename) parts.push(view.filename);
  if (view.total_rows !== null && view.phase !== 'preparing') parts.push(t('summary_rows', { count: view.total_rows }));
  if (view.encoding && view.phase !== 'preparing') parts.push(t('summary_encoding', { encoding: view.encoding }));
  if (view.phase === 'active' && view.review_expires_at) parts.push(t('summary_open_until', { date: formatDate(view.review_expires_at) }));
  return parts.join(' · ');
}

let drawn = false;
// Drawn synchronously on every change (render() is, unlike a component's own updates), so the
// state's actions can move the focus right after.
onChange((s) => {
  // Until the first answer, the server's "Loading…" stays.
  if (s.screen === null) return;
  if (!drawn) main.replaceChildren();
  drawn = true;
  render(<App s={s} />, main);
  // The summary and the busy flag belong to the server's frame, outside the components.
  summary.textContent = summaryText(s);
  if (s.screen === 'preparing') main.setAttribute('aria-busy', 'true');
  else main.removeAttribute('aria-busy');
});

void load();
