/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { axeViolations, screenshot } from '../support/browser';
import { focusedId, reviewBrowserSuite } from '../support/review-browser';
import { DIRECTORY, type Directory } from '@app/directory';
import { headersKey } from '@app/domain';
import { call, reviewApi } from '../support/service-harness';

/**
 * The review page with a title above the table, in Chromium: the rows left out are listed above the header choice,
 * the reviewer takes the first row as the names or leaves the title out again by keyboard, and the columns follow;
 * light, dark, Arabic, 360 px.
 */

const TITLED = 'Customer export\nMade 2024-01-05\nE-mail,Vorname,Jahre\nann@x.org,Ann,30\nbob@x.org,Bob,31\n';

/** The note's words without the marks that keep each value in its own direction. */
const noteText = async (page: Page) => (await page.locator('#rows-above-header').innerText()).replace(/[\u2068\u2069]/g, '');

describe('hosted review page: a title above the table', () => {
  const suite = reviewBrowserSuite();
  const titledRun = (body: Record<string, unknown> = {}) => suite.readyRun({ content: TITLED, filename: 'export.csv', body });
  const openPage = (url: string, options: { width?: number; colorScheme?: 'light' | 'dark' } = {}) =>
    suite.openPage(url, { ...options, ready: '#rows-above-header' });

  it('lists the title left out, takes row 1 as the names and leaves the title out again, by keyboard', async () => {
    const run = await titledRun();
    const page = await openPage(run.review_url);
    await expect(noteText(page)).resolves.toBe(
      'Left out as a title above the column names: row 1: Customer export, row 2: Made 2024-01-05. Take row 1 as the column names',
    );
    await expect(page.getByRole('checkbox', { name: 'Row 3 of the file holds the column names' }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('combobox', { name: 'email' }).inputValue()).resolves.toBe('E-mail');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'title-rows-01-left-out');

    await page.getByRole('button', { name: 'Take row 1 as the column names' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Columns read again', { exact: false }).first().waitFor();
    await expect(page.getByRole('checkbox', { name: 'The first row of the file holds the column names' }).isChecked()).resolves.toBe(true);
    await expect(focusedId(page)).resolves.toBe('first-row-header');
    await expect(noteText(page)).resolves.toBe(
      'Read as rows, though they look like a title above the column names: row 1: Customer export, row 2: Made 2024-01-05. Leave the title out again',
    );
    expect((await reviewApi(run.review_url).state()).body).toMatchObject({
      source_headers: ['Customer export', 'column_2', 'column_3'],
      total_rows: 4,
    });
    await screenshot(page, 'title-rows-02-read-as-rows');

    await page.getByRole('button', { name: 'Leave the title out again' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('checkbox', { name: 'Row 3 of the file holds the column names' }).waitFor();
    expect((await reviewApi(run.review_url).state()).body).toMatchObject({ source_headers: ['E-mail', 'Vorname', 'Jahre'], total_rows: 2 });
  }, 60_000);

  it('reads every row as data when the reviewer unticks the header, and offers to leave the title out again', async () => {
    const run = await titledRun();
    const page = await openPage(run.review_url);
    await page.getByRole('checkbox', { name: 'Row 3 of the file holds the column names' }).uncheck();
    await page.getByRole('button', { name: 'Leave the title out again' }).waitFor();
    await expect(page.getByRole('checkbox', { name: 'The first row of the file holds the column names' }).isChecked()).resolves.toBe(false);
    expect((await reviewApi(run.review_url).state()).body).toMatchObject({ input_has_header: false, total_rows: 5 });
  }, 60_000);

  it("takes the names from a row the reviewer picks among the file's first, by keyboard: a report's lines of two values", async () => {
    const run = await suite.readyRun({
      content: 'Account,DE12 3456\nPeriod,January 2024\nE-mail,Vorname,Jahre\nann@x.org,Ann,30\nbob@x.org,Bob,31\n',
      filename: 'report.csv',
    });
    const page = await suite.openPage(run.review_url, { ready: '#first-row-header' });
    await page.getByRole('button', { name: 'The column names are in another row…' }).focus();
    await page.keyboard.press('Enter');
    const rows = page.getByRole('group', { name: 'Which row holds the column names?' });
    await rows.waitFor();
    // The row now taken has the keyboard; the arrows move the choice and read nothing yet.
    await expect(focusedId(page)).resolves.toBe('header-row-0');
    await expect(rows.getByRole('radio').count()).resolves.toBe(5);
    const reads: string[] = [];
    page.on('request', (r) => r.url().includes('/header?') && reads.push(r.postData() ?? ''));
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect(rows.getByRole('radio', { name: /^Row 3: \W?E-mail · Vorname · Jahre\W?$/ }).isChecked()).resolves.toBe(true);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'title-rows-04-pick-row');
    expect(reads).toEqual([]);
    await page.keyboard.press('Tab');
    await expect(focusedId(page)).resolves.toBe('header-row-use');
    await page.keyboard.press('Enter');
    await page.getByRole('checkbox', { name: 'Row 3 of the file holds the column names' }).waitFor();
    expect(reads).toEqual([JSON.stringify({ input_has_header: true, rows_above_header: 2 })]);
    // The rows out of line were counted under row 1: under row 3, every row lines up, and the note goes.
    await expect(page.getByText('have more cells than', { exact: false }).count()).resolves.toBe(0);
    await expect(noteText(page)).resolves.toBe(
      'Left out as a title above the column names: row 1: Account · DE12 3456, row 2: Period · January 2024. Take row 1 as the column names',
    );
    expect((await reviewApi(run.review_url).state()).body).toMatchObject({ source_headers: ['E-mail', 'Vorname', 'Jahre'], total_rows: 2 });
  }, 60_000);

  it('says the columns were matched as approved last time when the same row is picked again in the next such file', async () => {
    const report = 'Account,DE12 3456\nPeriod,January 2024\nMail address,Yrs\nann@x.org,30\n';
    const first = await suite.readyRun({ content: report, filename: 'report.csv' });
    const firstReview = reviewApi(first.review_url);
    expect((await call(firstReview.at('header'), { method: 'POST', body: { input_has_header: true, rows_above_header: 2 } })).status).toBe(
      200,
    );
    expect((await firstReview.edit({ email: 'Mail address', age: 'Yrs' })).status).toBe(200);
    expect((await firstReview.approve()).status).toBe(200);
    const directory = suite.svc.app.get<Directory>(DIRECTORY);
    for (let i = 0; !(await directory.findRememberedMapping(suite.org.orgId, first.schema_id, headersKey(['Mail address', 'Yrs']))); i++) {
      if (i > 200) throw new Error('the approved mapping was not remembered');
      await new Promise((r) => setTimeout(r, 25));
    }

    const next = await suite.readyRun({ content: report, filename: 'report.csv', body: { schema_id: first.schema_id } });
    const page = await suite.openPage(next.review_url, { ready: '#first-row-header' });
    await page.getByRole('button', { name: 'The column names are in another row…' }).click();
    await page.getByRole('radio', { name: /^Row 3: / }).check();
    await page.getByRole('button', { name: 'Read the names from this row' }).click();
    await page.getByRole('status').filter({ hasText: 'Columns read again: they were matched as in the last approved file' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'email' }).inputValue()).resolves.toBe('Mail address');
    await expect(page.getByRole('combobox', { name: 'age' }).inputValue()).resolves.toBe('Yrs');
    // The review's notice says it as well, for whoever reads the page later.
    await expect(page.getByText('The columns were matched as in the last approved file', { exact: false }).count()).resolves.toBe(1);
  }, 60_000);

  it('shows no note for a file without a title', async () => {
    const run = await suite.readyRun({ content: 'E-mail,Jahre\nann@x.org,30\n', filename: 'plain.csv' });
    const page = await suite.openPage(run.review_url, { ready: '#first-row-header' });
    await expect(page.locator('#rows-above-header').count()).resolves.toBe(0);
  }, 60_000);

  it.each([
    ['light', 'en', 1100],
    ['dark', 'en', 360],
    ['dark', 'ar', 360],
  ] as const)('is axe-clean and fits the screen (%s, %s, %i px)', async (scheme, locale, width) => {
    const run = await titledRun({ locale });
    const page = await openPage(run.review_url, { width, colorScheme: scheme });
    await expect(axeViolations(page)).resolves.toEqual([]);
    // With the list of the first rows open too.
    await page.locator('#header-row-pick').click();
    await page.locator('.header-row-picker fieldset').waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
    await screenshot(page, `title-rows-03-${locale}-${scheme}-${width}`);
  });
});
