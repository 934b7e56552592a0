import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';

import { LOCALES, supportedLocale, type Locale } from '@app/domain';
import { loadWebAssets, SHARED_WEB_DIR, type WebAsset } from '../web-shared/web-assets';

export { supportedLocale };
export const REVIEW_LOCALES = LOCALES;
export type ReviewLocale = Locale;
export const RTL_LOCALES: ReadonlySet<string> = new Set(['ar']);

/** A catalog value: a string, or one string per plural category (Intl.PluralRules). */
export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Message>;

export type { WebAsset };

/**
 * Browser files and translation catalogs live in ./web, copied beside the compiled code by the
 * build; review.js is built there from ./page (scripts/build-review-page.js).
 */
const WEB_DIR = join(__dirname, 'web');
const REQUIRED_ASSETS = ['review.js', 'review.css', 'tokens.css'];

/**
 * The review page's static side: its script and style (served under a content hash so
 * browsers can cache them forever) and one translation catalog per language. Loaded
 * once at start; a missing or broken catalog stops the gateway from starting.
 */
@Injectable()
export class ReviewWeb {
  readonly catalogs: ReadonlyMap<ReviewLocale, Catalog>;
  private readonly assets: Map<string, WebAsset>;

  constructor() {
    this.catalogs = new Map(
      REVIEW_LOCALES.map((l) => [l, JSON.parse(readFileSync(join(WEB_DIR, 'i18n', `${l}.json`), 'utf8')) as Catalog]),
    );
    // The shared design tokens first, then the page's own script and style (served under /review-assets).
    this.assets = loadWebAssets([SHARED_WEB_DIR, WEB_DIR], '/review-assets');
    const missing = REQUIRED_ASSETS.filter((name) => !this.assets.has(name));
    if (missing.length > 0)
      throw new Error(
        `The review page's ${missing.join(' and ')} is missing from ${WEB_DIR}: build it with "npm run build" (or "node scripts/build-review-page.js").`,
      );
  }

  asset(name: string): WebAsset | undefined {
    return this.assets.get(name);
  }

  catalog(locale: string): Catalog {
    return this.catalogs.get(supportedLocale(locale)) ?? (this.catalogs.get('en') as Catalog);
  }

  /** A plain string from a catalog (the server renders only non-plural ones). */
  text(locale: string, key: string): string {
    const m = this.catalog(locale)[key] ?? this.catalog('en')[key];
    return typeof m === 'string' ? m : key;
  }
}

/** The best supported language of an Accept-Language header (for pages shown before the run is known). */
export function localeFromAcceptLanguage(header: string | undefined): ReviewLocale {
  const ranked = (header ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^q=([\d.]+)$/.exec(p.trim())?.[1]).find(Boolean);
      return { base: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q) };
    })
    .filter((x) => x.base && x.q > 0)
    .sort((a, b) => b.q - a.q);
  const hit = ranked.find((x) => (REVIEW_LOCALES as readonly string[]).includes(x.base));
  return hit ? (hit.base as ReviewLocale) : 'en';
}
