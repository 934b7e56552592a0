/// <reference lib="dom" />
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { track } from './suite-resources';

/** Debian's Chromium (installed by the test command, scripts/test-prerequisites.js); never a browser downloaded by Playwright. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(__dirname, '..', '..', 'test-artifacts', 'review');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with "apt-get install chromium" (npm test does when it can) or set CHROMIUM_PATH.`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  // The suite's own browser.close() and the after-suite cleanup close it once, whichever comes first.
  const closeBrowser = browser.close.bind(browser);
  browser.close = track('Chromium', () => closeBrowser());
  return browser;
}

/** Keeps a picture of each state the tests reach, for a person to look at (git-ignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** WCAG contrast ratio between two CSS colours of the form rgb()/rgba(). */
export function contrastRatio(fg: string, bg: string): number {
  const lum = (css: string) => {
    const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}

/** Text colour and effective (first opaque) background colour of every element matching a selector. */
export function colorsOf(page: Page, selector: string): Promise<{ text: string; color: string; background: string }[]> {
  return page.$$eval(selector, (nodes) =>
    nodes.map((node) => {
      const color = getComputedStyle(node).color;
      let el: Element | null = node;
      let background = 'rgb(255, 255, 255)';
      while (el) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg && bg !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(bg)) {
          background = bg;
          break;
        }
        el = el.parentElement;
      }
      return { text: (node.textContent ?? '').trim().slice(0, 40), color, background };
    }),
  );
}

/**
 * axe-core's WCAG 2.1 A/AA rules on the page as it is now; returns each violation as
 * "rule: target" so a failing test names what to fix. Also ids given to more than one element: axe-core 4.7 dropped
 * its duplicate-id rules, and one id on a form and on its input left the input without the name its label gives.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const duplicated = await page.evaluate(() => {
    const seen = new Map<string, number>();
    for (const el of Array.from(document.querySelectorAll('[id]'))) seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id, n]) => `duplicate id: #${id} (${n} elements)`);
  });
  return [...duplicated, ...(await axeRules(page))];
}

async function axeRules(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy refuses injected script tags (rightly).
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n: { target: string[] }) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
}

/**
 * Holds the page's requests to `url` (a Playwright glob; those of one `method` only, if given) until `release()`: a slow
 * answer on purpose, so that what a page does while it waits is seen every time rather than by chance on a busy
 * machine. `stop()` removes the route once the requests it held have gone on (removed sooner, a held request's
 * `continue` fails as already handled).
 */
export async function holdRequests(page: Page, url: string, method?: string): Promise<{ release: () => void; stop: () => Promise<void> }> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let inFlight = 0;
  let settled: (() => void) | null = null;
  const handler = async (route: Route) => {
    inFlight++;
    try {
      if (!method || route.request().method() === method) await released;
      await route.continue();
    } finally {
      if (--inFlight === 0) settled?.();
    }
  };
  await page.route(url, handler);
  const stop = async () => {
    if (inFlight > 0) await new Promise<void>((resolve) => (settled = resolve));
    await page.unroute(url, handler);
  };
  return { release, stop };
}
