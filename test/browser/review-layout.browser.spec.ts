/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { axeViolations, screenshot } from '../support/browser';
import { reviewBrowserSuite } from '../support/review-browser';

/**
 * The review page on a phone, in Chromium: what the keyboard reaches is never under the actions bar
 * that stays at the bottom of the screen (WCAG 2.4.11), a long value in a column's examples wraps
 * instead of widening the page, and a value's bidirectional controls are shown, not obeyed.
 */

/** A value of 5,000 characters without a blank, in the column the first name is read from. */
const LONG = 'x'.repeat(5000);
const CSV = [
  'E-mail,First,Years,Birthday',
  `ann@x.org,${LONG},30,01/01/1990`,
  ',Bob,31,02/01/1990',
  'cy@x.org,\u202Eevil,abc,03/01/1990',
].join('\n');
const MAPPING = { email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' };

describe('hosted review page: layout on a phone', () => {
  const suite = reviewBrowserSuite();
  const readyRun = (body: Record<string, unknown> = {}) => suite.readyRun({ content: CSV, body, mapping: MAPPING });

  async function openPhone(url: string, colorScheme: 'light' | 'dark', locale = 'en-US'): Promise<Page> {
    const context = await suite.browser.newContext({ viewport: { width: 360, height: 700 }, colorScheme, locale });
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('#problem-rows tbody tr').first().waitFor();
    return page;
  }

  /** Where the element with the keyboard is against the actions bar: fully above it, or (part) under it. */
  const focusAgainstBar = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const bar = document.querySelector('.actions')!.getBoundingClientRect();
      const at = el.getBoundingClientRect();
      const name = el.id || el.getAttribute('aria-label') || el.tagName;
      return { name, inBar: !!el.closest('.actions'), clear: at.bottom <= bar.top + 0.5 && at.top >= 0 };
    });

  it.each(['light', 'dark'] as const)(
    'keeps every control the keyboard reaches clear of the actions bar at 360 px (%s)',
    async (scheme) => {
      const run = await readyRun();
      const page = await openPhone(run.review_url, scheme);
      const under: string[] = [];
      let reached = 0;
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        const where = await focusAgainstBar(page);
        // Past the last control the keyboard goes to the browser (the body has it): not the page's.
        if (where.inBar || where.name === 'BODY') continue;
        reached++;
        if (!where.clear) under.push(where.name);
      }
      expect(reached).toBeGreaterThan(10);
      expect(under).toEqual([]);
      await screenshot(page, `layout-01-focus-clear-of-bar-360-${scheme}`);
      await page.context().close();
    },
    60000,
  );

  it.each([
    ['en-US', 'light'],
    ['ar', 'dark'],
  ] as const)('cuts a long value in the examples and wraps them, so the page stays 360 px wide (%s, %s)', async (locale, scheme) => {
    // The page speaks the run's language (its `locale`): Arabic is drawn right to left.
    const run = await readyRun({ locale });
    const page = await openPhone(run.review_url, scheme, locale);
    await expect(page.evaluate(() => document.documentElement.dir)).resolves.toBe(locale === 'ar' ? 'rtl' : 'ltr');
    const samples = page.locator('.field-samples:not([hidden])', { hasText: 'xxxx' });
    await samples.waitFor();
    const text = await samples.innerText();
    expect(text).toContain('…');
    expect(text.length).toBeLessThan(200);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, `layout-02-long-examples-360-${locale}-${scheme}`);
    await page.context().close();
  });

  it('shows a right-to-left override in a value as what it is, in the cells and the examples, rather than drawing "evil" as "live"', async () => {
    const run = await readyRun();
    const page = await openPhone(run.review_url, 'light');
    // The first name is upper-cased on its way out: the cell shows what will be delivered, the control made visible.
    const cell = page.locator('#preview tbody tr').nth(2).locator('td').nth(1);
    await expect(cell.innerText()).resolves.toBe('\u27E8U+202E\u27E9EVIL');
    const samples = page.locator('.field-samples:not([hidden])', { hasText: 'xxxx' });
    await expect(samples.innerText()).resolves.toContain('\u27E8U+202E\u27E9evil');
    await screenshot(page, 'layout-03-bidi-override-shown');
    await page.context().close();
  });
});
