import { RTL_LOCALES, supportedLocale, type ReviewWeb } from './review-web';
import { TAB_ICON, escapeHtml, jsonForScript } from '../web-shared/html';

/**
 * The HTML shells of the hosted review page. The server renders the frame in the
 * reviewer's language and theme (so nothing flickers); web/review.js fills it from the
 * signed JSON calls. No inline script or style, so the page runs under a strict CSP.
 */

/** Sent with every review page: no script but ours, no calls but to us, no referrer (the URL holds the signature). */
export const REVIEW_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'",
};

interface Frame {
  locale: string;
  appearance: 'light' | 'dark' | null;
  title: string;
  body: string;
  web: ReviewWeb;
  boot?: unknown;
}

function frame({ locale, appearance, title, body, web, boot }: Frame): string {
  const lang = supportedLocale(locale);
  const css = [web.asset('tokens.css')?.path, web.asset('review.css')?.path].filter(Boolean);
  const js = boot ? web.asset('review.js')?.path : undefined;
  return `<!doctype html>
<html lang="${lang}" dir="${RTL_LOCALES.has(lang) ? 'rtl' : 'ltr'}"${appearance ? ` data-theme="${appearance}"` : ''}>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><meta name="color-scheme" content="${appearance ?? 'light dark'}">
<title>${escapeHtml(title)}</title><link rel="icon" href="${TAB_ICON}">${css.map((href) => `<link rel="stylesheet" href="${href}">`).join('')}</head>
<body>${body}${boot ? `<script type="application/json" id="review-boot">${jsonForScript(boot)}</script>` : ''}${js ? `<script src="${js}" defer></script>` : ''}</body></html>`;
}

export function reviewPage(web: ReviewWeb, run: { locale: string; appearance: 'light' | 'dark' | null }): string {
  const locale = supportedLocale(run.locale);
  const t = (key: string) => escapeHtml(web.text(locale, key));
  return frame({
    locale,
    appearance: run.appearance,
    web,
    title: web.text(locale, 'page_title'),
    boot: { locale, messages: web.catalog(locale) },
    body: `<div class="page"><header class="masthead"><h1 id="title">${t('heading')}</h1><p id="summary" class="muted"></p></header>
<main id="main" aria-busy="true"><p class="muted">${t('loading')}</p><noscript><p class="notice error">${t('noscript')}</p></noscript></main></div>`,
  });
}

export function invalidLinkPage(web: ReviewWeb, locale: string): string {
  const t = (key: string) => escapeHtml(web.text(locale, key));
  return frame({
    locale,
    appearance: null,
    web,
    title: web.text(locale, 'invalid_title'),
    body: `<div class="page"><main id="main"><section class="state state-invalid" aria-labelledby="state-title">
<h1 id="state-title">${t('invalid_title')}</h1><p>${t('invalid_body')}</p></section></main></div>`,
  });
}
