/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { axeViolations, holdRequests, screenshot } from '../support/browser';
import { reviewBrowserSuite } from '../support/review-browser';
import { reviewApi } from '../support/service-harness';

/**
 * Paging the rows with problems by keyboard, in Chromium: the first and the last page in one step,
 * presses quicker than the answers never run past the last page, and the button that reached an end
 * keeps the keyboard.
 */

/** 50 rows, every one with an age that is not a whole number (three pages of 20); every tenth without its e-mail. */
const CSV = [
  'E-mail,First,Years,Birthday',
  ...Array.from({ length: 50 }, (_, i) => `${(i + 1) % 10 === 0 ? '' : `p${i + 1}@x.org`},P${i + 1},x${i + 1},01/01/1990`),
].join('\n');
const MAPPING = { email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' };

describe('hosted review page: paging the rows with problems', () => {
  const suite = reviewBrowserSuite();

  async function openReview(run?: { review_url: string }): Promise<Page> {
    run ??= await suite.readyRun({ content: CSV, mapping: MAPPING });
    const context = await suite.browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(run.review_url);
    await page.getByText('Page 1 of 3 · matching rows: 50').waitFor();
    // The tab's icon is in the page: the browser asks for no /favicon.ico, which would be a 404.
    await expect(page.locator('link[rel="icon"]').getAttribute('href')).resolves.toMatch(/^data:image\/svg\+xml,/);
    expect(asked.filter((path) => path.endsWith('favicon.ico'))).toEqual([]);
    return page;
  }

  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
  const firstListedRow = (page: Page) => page.locator('#problem-rows tbody th').first().innerText();

  it('goes to the last and the first page in one step; quick presses stop at the last page; the keyboard stays on the button', async () => {
    const page = await openReview();
    await page.locator('#problem-first').focus();
    await expect(page.locator('#problem-first').getAttribute('aria-disabled')).resolves.toBe('true');

    // Tab to "Last page" and press it: page 3, rows 41 to 50, and the keyboard is still on the button.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    await expect(focused(page)).resolves.toBe('problem-last');
    await page.keyboard.press('Enter');
    await page.getByText('Page 3 of 3 · matching rows: 50').waitFor();
    await expect(firstListedRow(page)).resolves.toBe('41');
    await expect(focused(page)).resolves.toBe('problem-last');
    await expect(page.locator('#problem-next').getAttribute('aria-disabled')).resolves.toBe('true');

    // Back one, then "Next page" five times faster than the answers: never past page 3.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect(focused(page)).resolves.toBe('problem-prev');
    await page.keyboard.press('Enter');
    await page.getByText('Page 2 of 3 · matching rows: 50').waitFor();
    await page.keyboard.press('Tab');
    for (let i = 0; i < 5; i++) await page.keyboard.press('Enter');
    await page.getByText('Page 3 of 3 · matching rows: 50').waitFor();
    await expect(firstListedRow(page)).resolves.toBe('41');
    await expect(focused(page)).resolves.toBe('problem-next');
    await screenshot(page, 'paging-01-last-page');

    // "First page": page 1; "Previous page" there changes nothing and keeps the keyboard.
    for (let i = 0; i < 2; i++) await page.keyboard.press('Shift+Tab');
    await expect(focused(page)).resolves.toBe('problem-first');
    await page.keyboard.press('Enter');
    await page.getByText('Page 1 of 3 · matching rows: 50').waitFor();
    await expect(firstListedRow(page)).resolves.toBe('1');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(focused(page)).resolves.toBe('problem-prev');
    await expect(page.getByText('Page 1 of 3 · matching rows: 50').count()).resolves.toBe(1);
    await expect(axeViolations(page)).resolves.toEqual([]);

    // Another filter, and "Last page" at once: its pages are not known yet, so nothing past its end is asked.
    // Its answer held until "Last page" was pressed.
    const held = await holdRequests(page, '**/problem-rows?*', 'POST');
    await page.locator('#problem-field').selectOption({ label: 'Email (5)' });
    await page.locator('#problem-last').focus();
    await page.keyboard.press('Enter');
    held.release();
    await held.stop();
    await page.getByText('Page 1 of 1 · matching rows: 5').waitFor();
    await expect(page.locator('#problem-rows tbody th').count()).resolves.toBe(5);
    // One page: no pager.
    await expect(page.locator('.pager').count()).resolves.toBe(0);
    await page.context().close();
  });

  /** The keyboard's cell in the rows with problems: its row's number and its column. */
  const focusedCell = (page: Page) =>
    page.evaluate(() => {
      const cell = document.activeElement as HTMLTableCellElement;
      return { table: cell.closest('table')?.id, row: cell.closest('tr')?.querySelector('th')?.innerText, col: cell.cellIndex };
    });

  /** Fixes the age in the keyboard's cell (column 3: the row's number, email, first_name, age) by its editor. */
  async function fixFocusedAge(page: Page, value: string): Promise<void> {
    await expect(focusedCell(page)).resolves.toMatchObject({ table: 'problem-rows', col: 3 });
    await page.keyboard.press('Enter');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(value);
    await page.keyboard.press('Enter');
  }

  it('stays on the page being worked through when a fix is counted, on the next row, and on the last page there is when the page emptied', async () => {
    const run = await suite.readyRun({ content: CSV, mapping: MAPPING });
    const page = await openReview(run);
    await page.locator('#problem-next').click();
    await page.getByText('Page 2 of 3 · matching rows: 50').waitFor();
    await page.locator('.table-wrap:has(#problem-rows)').focus();
    await page.keyboard.press('Tab');
    await expect(focusedCell(page)).resolves.toEqual({ table: 'problem-rows', row: '21', col: 3 });

    // Row 21 fixed: counted again, the page is still the second, and the keyboard on the next row's age.
    await fixFocusedAge(page, '21');
    await page.getByText('Page 2 of 3 · matching rows: 49').waitFor();
    await page.getByText('Fix saved. The rows were checked again. Rows with problems: 50 before, 49 now.').waitFor();
    await expect(firstListedRow(page)).resolves.toBe('22');
    await expect(focusedCell(page)).resolves.toEqual({ table: 'problem-rows', row: '22', col: 3 });

    // On the last page (rows 42 to 50), another reviewer fixes all but row 42's age (row 50 lacks its e-mail
    // too); fixing that one here empties the page: the list shows the last page there is, page 2 of 2.
    await page.locator('#problem-last').click();
    await page.getByText('Page 3 of 3 · matching rows: 49').waitFor();
    const review = reviewApi(run.review_url);
    for (let row = 43; row <= 50; row++)
      expect((await review.fix('age', { kind: 'cell', row, before: `x${row}`, after: String(row) })).status).toBe(200);
    expect((await review.fix('email', { kind: 'cell', row: 50, before: '', after: 'p50@x.org' })).status).toBe(200);
    await page.locator('.table-wrap:has(#problem-rows)').focus();
    await page.keyboard.press('Tab');
    await fixFocusedAge(page, '42');
    await page.getByText('Page 2 of 2 · matching rows: 40').waitFor();
    await expect(firstListedRow(page)).resolves.toBe('22');
    await page.context().close();
  });
});
