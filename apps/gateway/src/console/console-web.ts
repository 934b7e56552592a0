import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { loadWebAssets, SHARED_WEB_DIR, type WebAsset } from '../web-shared/web-assets';

/** A catalog value: a string, or one string per plural category (Intl.PluralRules). */
type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;

/**
 * Browser files and the text catalog live in ./web, copied beside the compiled code by the build;
 * console.js is built there from ./page (scripts/build-review-page.js).
 */
const WEB_DIR = join(__dirname, 'web');
const REQUIRED_ASSETS = ['console.js', 'console.css', 'tokens.css'];

/** Every text is in the catalog; English is the one written so far (the review page's locales can follow). */
export const CONSOLE_LOCALE = 'en';

/** The console's static side, loaded once at start: a missing script or catalog stops the gateway from starting. */
@Injectable()
export class ConsoleWeb {
  readonly messages: Record<string, Message>;
  private readonly assets: Map<string, WebAsset>;

  constructor() {
    this.messages = JSON.parse(readFileSync(join(WEB_DIR, 'i18n', `${CONSOLE_LOCALE}.json`), 'utf8')) as Record<string, Message>;
    this.assets = loadWebAssets([SHARED_WEB_DIR, WEB_DIR], '/console/assets');
    const missing = REQUIRED_ASSETS.filter((name) => !this.assets.has(name));
    if (missing.length > 0)
      throw new Error(
        `The console's ${missing.join(' and ')} is missing from ${WEB_DIR}: build it with "npm run build" (or "node scripts/build-review-page.js").`,
      );
  }

  asset(name: string): WebAsset | undefined {
    return this.assets.get(name);
  }

  text(key: string): string {
    const m = this.messages[key];
    return typeof m === 'string' ? m : key;
  }
}
