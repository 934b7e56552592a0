import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';

import { LOCALES, supportedLocale, type Locale } from '@app/domain';

export { supportedLocale };
export const REVIEW_LOCALES = LOCALES;
export type ReviewLocale = Locale;
export const RTL_LOCALES: ReadonlySet<string> = new Set(['ar']);

/** A catalog value: a string, or one string per plural category (Intl.PluralRules). */
export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Message>;

export interface WebAsset {
  body: string;
  contentType: string;
  etag: string;
  path: string;
}

/**
 * Browser files and translation catalogs live in ./web, copied beside the compiled code by the
 * build; review.js is built there from ./page (scripts/build-review-page.js).
 */
const WEB_DIR = join(__dirname, 'web');
const REQUIRED_ASSETS = ['review.js', 'review.css'];
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * The review page's static side: its script and style (served under a content hash so
 * browsers can cache them forever) and one translation catalog per language. Loaded
 * once at start; a missing or broken catalog stops the gateway from starting.
 */
@Injectable()
export class ReviewWeb {
  readonly catalogs: ReadonlyMap<ReviewLocale, Catalog>;
  private readonly assets = new Map<string, WebAsset>();

  constructor() {
    this.catalogs = new Map(
      REVIEW_LOCALES.map((l) => [l, JSON.parse(readFileSync(join(WEB_DIR, 'i18n', `${l}.json`), 'utf8')) as Catalog]),
    );
    for (const file of readdirSync(WEB_DIR)) {
      const ext = file.slice(file.lastIndexOf('.'));
      if (!ASSET_TYPES[ext]) continue;
      const body = readFileSync(join(WEB_DIR, file), 'utf8');
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
      this.assets.set(file, { body, contentType: ASSET_TYPES[ext], etag: `"${hash}"`, path: `/review-assets/${file}?v=${hash}` });
    }
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
