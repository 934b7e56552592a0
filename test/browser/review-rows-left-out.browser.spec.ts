/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations, SCREENSHOT_DIR, screenshot } from '../support/browser';
import { reviewBrowserSuite } from '../support/review-browser';
import { eventually, reviewApi, waitForRun } from '../support/service-harness';

/**
 * A reviewer leaves one row out of the records (a test record, a totals line) and puts it back, in Debian's
 * Chromium: the button beside each row's number (Enter on the number, by keyboard), the row shown as left out in
 * the preview (greyed, struck through, and "Left out" in words), the count of rows with problems without it, the
 * list of the rows left out with "Put back" for each, the page's message for each step and its undo, approval,
 * and an output without the rows left out. At 360 px, dark and in Arabic too, axe-core clean.
 */

/** Six rows: row 2 lacks its e-mail, rows 3 and 5 have an age that is not a whole number. */
const CSV = [
  'E-mail,First,Years,Birthday',
  'ann@x.org,Ann,30,01/01/1990',
  ',Bob,31,02/01/1990',
  'cy@x.org,Cy,abc,03/01/1990',
  'dee@x.org,Dee,33,04/01/1990',
  'eve@x.org,Eve,x1,05/01/1990',
  'fay@x.org,Fay,35,06/01/1990',
].join('\n');
const MAPPING = { email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' };
/** Beside the other specs' pictures (git-ignored), not in a fixed folder of /tmp shared by every checkout and run. */
const SHOTS = join(SCREENSHOT_DIR, 'rows-left-out');

/** What the page shows of each preview row: its number cell's text, whether it is marked left out, and how its values are drawn. */
const previewRows = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLTableRowElement>('#preview tbody tr')).map((tr) => {
      const value = tr.querySelector('td')!;
      return {
        number: tr.querySelector('th')!.innerText.replace(/\s+/g, ' ').trim(),
        leftOut: tr.classList.contains('left-out'),
        struck: getComputedStyle(value).textDecorationLine,
        bad: tr.querySelectorAll('td.bad').length,
      };
    }),
  );
const problemRowNumbers = (page: Page) => page.locator('#problem-rows tbody th').allInnerTexts();
/** What `read` gives once it equals `want` (or, after a few seconds, what it gave last, for the failure to show). */
async function settles<T>(read: () => Promise<T>, want: T): Promise<void> {
  const same = (v: T) => JSON.stringify(v) === JSON.stringify(want);
  const last = await eventually(read, same, 5000).catch(() => read());
  expect(last).toEqual(want);
}
const live = (page: Page) => page.locator('#live').innerText();
/** The name a screen reader is given for the element with the keyboard, as far as the DOM says it (aria-label, else its text). */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { tag: el?.tagName ?? '', name: el?.getAttribute('aria-label') ?? el?.innerText ?? '', table: el?.closest('table')?.id ?? '' };
  });

describe('review page: a row left out and put back, in Chromium', () => {
  const suite = reviewBrowserSuite();

  beforeAll(() => mkdirSync(SHOTS, { recursive: true }));

  async function shoot(page: Page, name: string): Promise<void> {
    await screenshot(page, `leftout-${name}`);
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    // The preview section alone, at full size: the rows left out, the list, the fixes bar.
    await page.locator('section:has(#preview-title)').screenshot({ path: join(SHOTS, `${name}-preview.png`) });
  }

  it('leaves a row with a problem out by keyboard, puts it back from the list, undoes, approves: the output lacks the row', async () => {
    const run = await suite.readyRun({ content: CSV, mapping: MAPPING });
    const page = await suite.openPage(run.review_url, { ready: '#problem-rows tbody tr >> nth=0' });
    await page.getByText('3 of 6 rows have problems.').waitFor();
    await expect(problemRowNumbers(page)).resolves.toEqual(['2', '3', '5']);
    // Each row of both tables has its button, named with its row; none is a tab stop of its own (the grid has one).
    await expect(page.getByRole('grid', { name: 'The first 6 rows as they will be delivered' }).count()).resolves.toBe(1);
    const preview = page.locator('#preview');
    await expect(preview.getByRole('button', { name: 'Leave row 5 out' }).count()).resolves.toBe(1);
    await expect(page.locator('#problem-rows').getByRole('button', { name: 'Leave row 5 out' }).count()).resolves.toBe(1);
    await expect(page.locator('.row-action[tabindex="0"], .row-action:not([tabindex])').count()).resolves.toBe(0);
    // No row is left out yet: no list of them.
    await expect(page.locator('#rows-left-out').count()).resolves.toBe(0);

    // By keyboard: into the preview grid (its first bad cell, row 2's e-mail), to row 5's number, Enter.
    await page.locator('.table-wrap:has(#preview)').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Home');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    await expect(focusedName(page)).resolves.toMatchObject({ tag: 'TH', table: 'preview' });
    await expect(page.evaluate(() => (document.activeElement as HTMLElement).innerText.trim())).resolves.toBe('5');
    await page.keyboard.press('Enter');

    // Said in the live region, with the count before and after; the count itself drops, and row 5 leaves the problem list.
    await page.getByText('Row 5 left out. The rows were checked again. Rows with problems: 3 before, 2 now.').waitFor();
    await expect(live(page)).resolves.toBe('Row 5 left out. The rows were checked again. Rows with problems: 3 before, 2 now.');
    await page.getByText('2 of 6 rows have problems.').waitFor();
    await settles(() => problemRowNumbers(page), ['2', '3']);
    // Still in the preview, marked in words and struck through, its problem no longer shown; "Put row 5 back" in its place.
    const rows = await previewRows(page);
    expect(rows[4]).toEqual({ number: '5 Left out', leftOut: true, struck: 'line-through', bad: 0 });
    expect(rows.filter((r) => r.leftOut)).toHaveLength(1);
    expect(rows[2]).toMatchObject({ number: '3', leftOut: false, struck: 'none', bad: 1 });
    await expect(preview.getByRole('button', { name: 'Put row 5 back' }).count()).resolves.toBe(1);
    // The grid is not called "as they will be delivered" any more: its caption (its name) says the rows left out are not.
    await expect(page.getByRole('grid', { name: 'The first 6 rows: those left out are not delivered' }).count()).resolves.toBe(1);
    await expect(preview.getByRole('button', { name: 'Leave row 5 out' }).count()).resolves.toBe(0);
    // The keyboard stayed on row 5's number, through the redraw.
    await settles(
      () => page.evaluate(() => (document.activeElement as HTMLElement).closest('tr')?.querySelector('th')?.innerText ?? ''),
      '5\nLeft out',
    );
    // The fixes bar: one fix, which it names; the list of rows left out.
    await expect(page.locator('#fixes-count').innerText()).resolves.toBe('Fixes in force: 1');
    await expect(page.locator('#fix-latest').innerText()).resolves.toBe('Latest fix: row 5 left out');
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Row left out:\s*5\s*Put back$/);
    // The service agrees: the preview answers row 5 as left out.
    const api = reviewApi(run.review_url);
    await expect(api.preview(MAPPING).then((r) => r.body.left_out_rows)).resolves.toEqual([5]);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '01-row-5-left-out-1100-light');

    // Row 3 left out from the rows with problems, by keyboard: into that grid (row 2's e-mail), down, to its number, Enter.
    await page.locator('.table-wrap:has(#problem-rows)').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    await expect(page.evaluate(() => (document.activeElement as HTMLElement).innerText.trim())).resolves.toBe('3');
    await page.keyboard.press('Enter');
    await page.getByText('Row 3 left out. The rows were checked again. Rows with problems: 2 before, 1 now.').waitFor();
    await page.getByText('1 of 6 rows has problems.').waitFor();
    await settles(() => problemRowNumbers(page), ['2']);
    // Its row gone from that grid, the keyboard stays in it, on the number of the row in its place (here the last one left).
    await settles(() => focusedName(page).then((f) => ({ tag: f.tag, table: f.table, name: f.name.trim() })), {
      tag: 'TH',
      table: 'problem-rows',
      name: '2',
    });
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Rows left out:\s*3\s*Put back\s*5\s*Put back$/);
    await expect(previewRows(page).then((r) => r.map((x) => x.leftOut))).resolves.toEqual([false, false, true, false, true, false]);

    // Row 5 put back from the list, by keyboard: from "Undo last fix", Tab to its "Put back", Enter.
    await page.getByRole('button', { name: 'Undo last fix' }).focus();
    await page.keyboard.press('Tab');
    await expect(focusedName(page)).resolves.toMatchObject({ name: 'Put back row 3' });
    await page.keyboard.press('Tab');
    await expect(focusedName(page)).resolves.toMatchObject({ name: 'Put back row 5' });
    await page.keyboard.press('Enter');
    await page.getByText('Row 5 put back. The rows were checked again. Rows with problems: 1 before, 2 now.').waitFor();
    await page.getByText('2 of 6 rows have problems.').waitFor();
    await settles(() => problemRowNumbers(page), ['2', '5']);
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Row left out:\s*3\s*Put back$/);
    await expect(previewRows(page).then((r) => r[4])).resolves.toEqual({ number: '5', leftOut: false, struck: 'none', bad: 1 });
    // Its button gone, the keyboard went to the one left in the list, not to the page's body.
    await expect(focusedName(page)).resolves.toMatchObject({ name: 'Put back row 3' });
    await expect(page.locator('#fixes-count').innerText()).resolves.toBe('Fixes in force: 3');
    await expect(page.locator('#fix-latest').innerText()).resolves.toBe('Latest fix: row 5 put back');

    // Undo takes back the put back: row 5 is left out again, and the message says so.
    await page.getByRole('button', { name: 'Undo last fix' }).click();
    await page
      .getByText('Last fix undone: row 5 is left out again. The rows were checked again. Rows with problems: 2 before, 1 now.')
      .waitFor();
    await page.getByText('1 of 6 rows has problems.').waitFor();
    await settles(() => problemRowNumbers(page), ['2']);
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Rows left out:\s*3\s*Put back\s*5\s*Put back$/);
    await expect(previewRows(page).then((r) => r.map((x) => x.leftOut))).resolves.toEqual([false, false, true, false, true, false]);
    await expect(page.locator('#fixes-count').innerText()).resolves.toBe('Fixes in force: 2');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '02-rows-3-5-left-out-1100-light');

    // At 360 px, light and dark: the same review fits the screen, its controls in reach, axe-core clean (its colour contrast too).
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await suite.openPage(run.review_url, { width: 360, colorScheme, ready: '#preview tbody tr.left-out >> nth=0' });
      await phone.getByText('1 of 6 rows has problems.').waitFor();
      await expect(phone.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      for (const name of ['Put back row 3', 'Put back row 5', 'Put row 3 back', 'Leave row 2 out']) {
        const box = await phone.getByRole('button', { name }).first().boundingBox();
        // A target of 24 px at least (WCAG 2.5.8), inside the screen.
        expect({ name, big: box!.width >= 24 && box!.height >= 24, inside: box!.x >= 0 && box!.x + box!.width <= 360 }).toEqual({
          name,
          big: true,
          inside: true,
        });
      }
      await expect(axeViolations(phone)).resolves.toEqual([]);
      await shoot(phone, `03-360-${colorScheme}`);
      await phone.context().close();
    }

    // Approve: the confirmation names the rows left out; the rows with a problem are delivered (the default).
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await dialog.getByText('The 2 rows you left out will not be delivered: 3, 5.').waitFor();
    await dialog.getByRole('button', { name: 'Yes, approve' }).click();
    const done = await waitForRun(suite.svc, suite.org.apiKey, run.id, (r) => r.status === 'completed' && r.stage === 'final', 30_000);
    expect(done.rows_excluded).toBe(2);
    const output = (await (await fetch(done.download_url)).json()) as { email: string | null; first_name: string | null }[];
    expect(output.map((r) => r.first_name)).toEqual(['ANN', 'BOB', 'DEE', 'FAY']);
    // The approved page says which rows it left out.
    await page.getByText('The 2 rows you left out are not in the output: 3, 5.').waitFor({ timeout: 30_000 });
    // Read-only now: the rows left out still marked, no button to leave out or put back.
    await expect(previewRows(page).then((r) => r.map((x) => x.leftOut))).resolves.toEqual([false, false, true, false, true, false]);
    await expect(page.locator('.row-action, .put-back').count()).resolves.toBe(0);
    await expect(page.locator('#rows-left-out').innerText()).resolves.toBe('Rows left out: 3, 5');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '05-approved-1100-light');
    await page.context().close();
  }, 120_000);

  it('leaves a row without problems out by its button (pointer); undone, it is delivered again, and the message says so', async () => {
    const run = await suite.readyRun({ content: CSV, mapping: MAPPING });
    const page = await suite.openPage(run.review_url, { ready: '#problem-rows tbody tr >> nth=0' });
    await page.getByText('3 of 6 rows have problems.').waitFor();
    await page.locator('#preview').getByRole('button', { name: 'Leave row 1 out' }).click();
    // A row without problems: the count stays as it was, and the message says so.
    await page.getByText('Row 1 left out. The rows were checked again. Rows with problems: 3 before, 3 now.').waitFor();
    await expect(previewRows(page).then((r) => r[0])).resolves.toEqual({
      number: '1 Left out',
      leftOut: true,
      struck: 'line-through',
      bad: 0,
    });
    await page.getByRole('button', { name: 'Undo last fix' }).click();
    await page
      .getByText('Last fix undone: row 1 is delivered again. The rows were checked again. Rows with problems: 3 before, 3 now.')
      .waitFor();
    await expect(previewRows(page).then((r) => r[0])).resolves.toEqual({ number: '1', leftOut: false, struck: 'none', bad: 0 });
    await expect(page.locator('#rows-left-out').count()).resolves.toBe(0);
    await expect(page.locator('#fixes').isVisible()).resolves.toBe(false);
    await page.context().close();
  });

  it('a row left out is another row once the first row is read as data: the list empties, and fills again read as before', async () => {
    const run = await suite.readyRun({ content: CSV, mapping: MAPPING });
    const page = await suite.openPage(run.review_url, { ready: '#problem-rows tbody tr >> nth=0' });
    await page.locator('#preview').getByRole('button', { name: 'Leave row 5 out' }).click();
    await page.getByText('Row 5 left out. The rows were checked again. Rows with problems: 3 before, 2 now.').waitFor();
    const header = page.getByRole('checkbox', { name: 'The first row of the file holds the column names' });
    await header.uncheck();
    await page.locator('#summary', { hasText: '7 rows' }).waitFor();
    // Row 5 is Dee's row now, which nobody left out: nothing is marked, listed, or said to be left out at approval.
    await expect(page.locator('#rows-left-out').count()).resolves.toBe(0);
    await expect(page.locator('#preview tbody tr.left-out').count()).resolves.toBe(0);
    expect((await reviewApi(run.review_url).preview()).body.left_out_rows).toEqual([]);
    await header.check();
    await page.locator('#summary', { hasText: '6 rows' }).waitFor();
    await page.locator('#rows-left-out', { hasText: '5' }).waitFor();
    // The list is drawn from the state, the preview from its own answer: wait for the preview to be drawn again.
    await page.locator('#preview tbody tr.left-out').waitFor();
    await expect(previewRows(page).then((r) => r[4].leftOut)).resolves.toBe(true);
    await page.context().close();
  });

  it('reads right to left in Arabic at 360 px: the row buttons and the list named in Arabic, axe-core clean', async () => {
    // The review's language is the run's (the browser's is only a fallback).
    const run = await suite.readyRun({ content: CSV, mapping: MAPPING, body: { locale: 'ar' } });
    expect((await reviewApi(run.review_url).fix(undefined, { kind: 'leave_out', row: 5 })).status).toBe(200);
    const context = await suite.browser.newContext({ viewport: { width: 360, height: 800 }, colorScheme: 'dark', locale: 'ar' });
    const page = await context.newPage();
    await page.goto(run.review_url);
    await page.locator('#preview tbody tr.left-out').waitFor();
    await expect(page.evaluate(() => document.documentElement.dir)).resolves.toBe('rtl');
    await expect(page.getByRole('button', { name: /^إعادة الصف (5|٥)$/ }).count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('#preview tbody tr.left-out th').innerText()).resolves.toContain('مستبعَد');
    await expect(page.locator('#rows-left-out').innerText()).resolves.toContain('الصف المستبعد:');
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '04-arabic-360-dark');
    await context.close();
  });
});
