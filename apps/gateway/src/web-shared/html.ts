/** Text put into an HTML page the server renders: the five characters that could open markup, escaped. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** JSON inside <script type="application/json">: `<` escaped so no value can close the element. */
export const jsonForScript = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The tab's icon of the review page and the console, inline (their CSP allows data: images): a browser otherwise
 * asks for /favicon.ico, which the service does not serve, and logs a 404 on every page.
 */
export const TAB_ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%230b57d0'/%3E%3Cpath d='M4 8.5l2.5 2.5L12 5.5' stroke='white' stroke-width='2' fill='none'/%3E%3C/svg%3E";
