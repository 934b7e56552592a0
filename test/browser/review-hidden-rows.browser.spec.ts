/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { Page } from 'playwright-core';
import { axeViolations, SCREENSHOT_DIR } from '../support/browser';
import { reviewBrowserSuite } from '../support/review-browser';
import { reviewApi, waitForRun } from '../support/service-harness';

/**
 * Rows a workbook's sheet hides (Excel does not show them, the file holds them): the review page names them in a
 * notice, with "Leave out" beside each one still delivered (50 at a time, turned by "Previous hidden rows" and "Next
 * hidden rows") and "Leave all hidden rows out"; the tables mark a hidden row still delivered ("Hidden in the
 * workbook" by its number); a row left out there is listed with the rows left out and marked "Left out" in the
 * preview, and the output lacks it. "Leave all hidden rows out" is one fix (leave_out_hidden) when the service knows
 * every hidden row (`hidden_rows_known`), past the 1,000 listed too, and "Put the hidden rows back" undoes it; when it
 * does not (a sheet hiding rows in more than 10,000 places, made here by rewriting the answers the page gets), the page
 * leaves the listed rows out one by one. Keyboard alone, 360 px light and dark, Arabic, axe-core clean; a workbook
 * without hidden rows has no notice.
 */

const MAPPING = { email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' };
/** Beside the other specs' pictures (git-ignored), not in a fixed folder of /tmp shared by every checkout and run. */
const SHOTS = join(SCREENSHOT_DIR, 'hidden-rows');
const NOTICE_EN =
  '2 rows are hidden in the workbook (rows 2, 4). Excel does not show them, but they are delivered like the others unless you leave them out.';

/** Five records; row 2 (Bob) and row 4 (a "Total" line, without an e-mail: a problem) are hidden. */
async function workbook(hide = true): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('People');
  ws.addRow(['E-mail', 'First', 'Years', 'Birthday']);
  ws.addRow(['ann@x.org', 'Ann', 30, '01/01/1990']);
  ws.addRow(['bob@x.org', 'Bob', 31, '02/01/1990']).hidden = hide;
  ws.addRow(['cy@x.org', 'Cy', 32, '03/01/1990']);
  ws.addRow(['', 'Total', 93, '']).hidden = hide;
  ws.addRow(['dee@x.org', 'Dee', 34, '04/01/1990']);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const live = (page: Page) => page.locator('#live').innerText();
const leftOutMarks = (page: Page) =>
  page.evaluate(() => Array.from(document.querySelectorAll('#preview tbody tr')).map((tr) => tr.classList.contains('left-out')));
/** How each row of a table is marked by its number: hidden in the workbook (still delivered), left out, or neither. */
const rowMarks = (page: Page, table: string) =>
  page.evaluate(
    (id) =>
      Array.from(document.querySelectorAll(`#${id} tbody th[scope="row"]`)).map((th) =>
        th.querySelector('.left-out-tag') ? 'out' : th.querySelector('.hidden-tag') ? 'hidden' : '',
      ),
    table,
  );
/**
 * The width of a table's row numbers' column as drawn, and as it would be without the "Hidden in the workbook" tags
 * (hidden for the measure, then shown again): equal when the tags do not widen it.
 */
const numberColumn = (page: Page, table: string): Promise<{ drawn: number; withoutTags: number }> =>
  page.evaluate((id) => {
    const width = () => Math.round(document.querySelector(`#${id} thead th`)!.getBoundingClientRect().width);
    const tags = Array.from(document.querySelectorAll<HTMLElement>(`#${id} .hidden-tag`));
    const drawn = width();
    for (const tag of tags) tag.style.display = 'none';
    const withoutTags = width();
    for (const tag of tags) tag.style.display = '';
    return { drawn, withoutTags };
  }, table);
/** The accessible name of the element with the keyboard, as far as the DOM says it (aria-label, else its text), and its id. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { id: el?.id ?? '', name: (el?.getAttribute('aria-label') ?? el?.innerText ?? '').trim() };
  });
/**
 * The description a screen reader is told with the button named `name` in the hidden rows' notice, from Chromium's own
 * accessibility tree (not the attributes): the pager's buttons are described by the line that says which are listed.
 */
async function descriptionOf(page: Page, name: string): Promise<string | undefined> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const button = nodes.find((n) => n.role?.value === 'button' && n.name?.value === name);
    return button ? ((button.description?.value as string | undefined) ?? '') : undefined;
  } finally {
    await cdp.detach();
  }
}
/** Tabs from the top of the page until the element named `name` has the keyboard (at most `presses`); false if never. */
async function tabTo(page: Page, name: string, presses = 40): Promise<boolean> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)).name === name) return true;
  }
  return false;
}

describe('review page: rows a workbook hides, in Chromium', () => {
  const suite = reviewBrowserSuite();

  /**
   * The review page as a service would show it whose sheet hides its rows in too many places to know them all: every
   * answer of the review's JSON calls says `hidden_rows_known: false` (the service itself knows them), so the page
   * leaves the listed hidden rows out one by one. A test's own route registered later runs first and falls back here.
   */
  async function openUnknown(
    url: string,
    { width = 1100, colorScheme = 'light' }: { width?: number; colorScheme?: 'light' | 'dark' } = {},
  ) {
    const context = await suite.browser.newContext({ viewport: { width, height: 900 }, colorScheme, locale: 'en-US' });
    const page = await context.newPage();
    await page.route(/\/review\/[^/?]+\/[a-z/-]+\?/, async (route) => {
      try {
        const response = await route.fetch();
        if (!(response.headers()['content-type'] ?? '').includes('application/json')) return await route.fulfill({ response });
        const body = (await response.json()) as Record<string, unknown> | null;
        if (body && typeof body === 'object' && 'hidden_rows_known' in body) body.hidden_rows_known = false;
        return await route.fulfill({ response, json: body });
      } catch {
        // The page was closed while an answer was on its way (a count still polled): nobody is waiting for it.
      }
    });
    await page.goto(url);
    await page.locator('#hidden-rows').waitFor();
    return page;
  }

  beforeAll(() => mkdirSync(SHOTS, { recursive: true }));
  const shoot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    await page.locator('#hidden-rows').screenshot({ path: join(SHOTS, `${name}-notice.png`) });
  };

  it('names the hidden rows; one left out by keyboard, then all; approved, the output lacks both', async () => {
    const run = await suite.readyRun({ content: await workbook(), filename: 'people.xlsx', mapping: MAPPING });
    const api = reviewApi(run.review_url);
    expect((await api.state()).body.hidden_rows).toEqual([2, 4]);
    const page = await suite.openPage(run.review_url, { ready: '#hidden-rows' });
    await page.getByText('1 of 5 rows has problems.').waitFor();
    const notice = page.locator('#hidden-rows');
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(NOTICE_EN);
    await expect(notice.getAttribute('role')).resolves.toBe('note');
    // A button for each, named with its row, and one for all of them.
    for (const name of ['Leave out row 2', 'Leave out row 4', 'Leave all hidden rows out'])
      await expect(notice.getByRole('button', { name, exact: true }).count()).resolves.toBe(1);
    await expect(page.locator('#hidden-rows-in-title').innerText()).resolves.toBe('Hidden rows still delivered:');
    await expect(page.locator('#rows-left-out').count()).resolves.toBe(0);
    // The preview marks both hidden rows by their number, in words a screen reader hears with the row header (not colour
    // alone); the rows with problems mark row 4, the "Total" line, there too.
    await expect(rowMarks(page, 'preview')).resolves.toEqual(['', 'hidden', '', 'hidden', '']);
    await expect(page.getByRole('grid', { name: 'The first 5 rows as they will be delivered' }).count()).resolves.toBe(1);
    const preview = page.locator('#preview');
    for (const row of [2, 4])
      await expect(
        preview.getByRole('rowheader', { name: `${row} Leave row ${row} out Hidden in the workbook`, exact: true }).count(),
      ).resolves.toBe(1);
    await expect(preview.getByRole('rowheader', { name: /Hidden in the workbook/ }).count()).resolves.toBe(2);
    // At this width the words are drawn, beside the eye.
    expect((await preview.locator('.hidden-tag-words').first().boundingBox())!.width).toBeGreaterThan(40);
    await expect(rowMarks(page, 'problem-rows')).resolves.toEqual(['hidden']);
    await expect(
      page
        .locator('#problem-rows')
        .getByRole('rowheader', { name: /^4 .*Hidden in the workbook$/ })
        .count(),
    ).resolves.toBe(1);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '01-1100-light');

    // By keyboard: Tab to row 4's button (the "Total" line, which has the one problem), Enter.
    await expect(tabTo(page, 'Leave out row 4')).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText('Row 4 left out. The rows were checked again. Rows with problems: 1 before, 0 now.').waitFor();
    // Listed with the rows left out (where it can be put back), marked in the preview, gone from the notice's list.
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Row left out:\s*4\s*Put back$/);
    await expect(leftOutMarks(page)).resolves.toEqual([false, false, false, true, false]);
    await expect(page.locator('#preview tbody tr.left-out th').innerText()).resolves.toContain('Left out');
    // Left out, it says "Left out" and no longer "Hidden in the workbook" (it is not delivered); row 2 still is.
    await expect(rowMarks(page, 'preview')).resolves.toEqual(['', 'hidden', '', 'out', '']);
    await expect(preview.getByRole('rowheader', { name: /^4 .*Left out$/ }).count()).resolves.toBe(1);
    await expect(notice.getByRole('button').allInnerTexts()).resolves.toEqual(['Leave out']);
    await expect(notice.getByRole('button', { name: 'Leave out row 2' }).count()).resolves.toBe(1);
    await expect(page.locator('#hidden-rows-in-title').innerText()).resolves.toBe('Hidden row still delivered:');
    // Its button gone, the keyboard went to the next one in the notice, not to the page's body.
    await expect(focused(page)).resolves.toEqual({ id: '', name: 'Leave out row 2' });
    // The notice still names both rows: they are hidden in the file whatever is left out.
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(NOTICE_EN);
    expect((await api.state()).body.rows_left_out).toEqual([4]);

    // Undone, both are delivered again; then "Leave all hidden rows out", by keyboard.
    await page.getByRole('button', { name: 'Undo last fix' }).click();
    await page
      .getByText('Last fix undone: row 4 is delivered again. The rows were checked again. Rows with problems: 0 before, 1 now.')
      .waitFor();
    await notice.getByRole('button', { name: 'Leave out row 4' }).waitFor();
    await expect(tabTo(page, 'Leave all hidden rows out')).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText('2 hidden rows left out. The rows were checked again. Rows with problems: 1 before, 0 now.').waitFor();
    await expect(live(page)).resolves.toBe('2 hidden rows left out. The rows were checked again. Rows with problems: 1 before, 0 now.');
    // One fix for both (the service knows every hidden row): listed as one entry of the rows left out, put back together.
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Rows left out:\s*2 hidden rows\s*Put back$/);
    await expect(
      page.locator('#rows-left-out').getByRole('button', { name: 'Put back the 2 hidden rows', exact: true }).count(),
    ).resolves.toBe(1);
    await expect(leftOutMarks(page)).resolves.toEqual([false, true, false, true, false]);
    await expect(rowMarks(page, 'preview')).resolves.toEqual(['', 'out', '', 'out', '']);
    // The notice says they are all left out, and its one button puts them back: it has the keyboard.
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(
      '2 rows are hidden in the workbook (rows 2, 4). Excel does not show them.',
    );
    await expect(page.locator('#hidden-rows-all-out').innerText()).resolves.toBe('All 2 hidden rows are left out: they are not delivered.');
    await expect(notice.getByRole('button').allInnerTexts()).resolves.toEqual(['Put the hidden rows back']);
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-put-back', name: 'Put the hidden rows back' });
    await expect(page.locator('#fixes-count').innerText()).resolves.toBe('Fixes in force: 1');
    await expect(page.locator('#fix-latest').innerText()).resolves.toBe('Latest fix: the hidden rows left out');
    const together = (await api.state()).body;
    expect([together.rows_left_out, together.hidden_rows_left_out, together.value_fixes.length]).toEqual([[], true, 1]);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '02-all-left-out-1100-light');

    // Each put back on its own from the preview, by keyboard: none is left out any more, so the page says them delivered
    // (as if none were left out) and offers "Leave all hidden rows out", not a "Put the hidden rows back" that puts back none.
    for (const row of [2, 4]) {
      await preview.getByRole('rowheader', { name: `${row} Put row ${row} back Left out`, exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.locator('#live', { hasText: `Row ${row} put back. The rows were checked again.` }).waitFor();
    }
    expect((await api.state()).body).toMatchObject({ hidden_rows_left_out: true, hidden_rows_put_back: [2, 4], rows_left_out: [] });
    await expect(page.locator('#hidden-rows-all-out, #hidden-rows-put-back, #rows-left-out').count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(NOTICE_EN);
    await expect(
      notice.getByRole('button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent)),
    ).resolves.toEqual(['Leave out row 2', 'Leave out row 4', 'Leave all hidden rows out']);
    await expect(rowMarks(page, 'preview')).resolves.toEqual(['', 'hidden', '', 'hidden', '']);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '02b-all-put-back-one-by-one-1100-light');
    // Left out together again, by keyboard: both out, as before.
    await expect(tabTo(page, 'Leave all hidden rows out')).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#live', { hasText: '2 hidden rows left out. The rows were checked again.' }).waitFor();
    await expect(page.locator('#hidden-rows-all-out').innerText()).resolves.toBe('All 2 hidden rows are left out: they are not delivered.');
    expect((await api.state()).body).toMatchObject({ hidden_rows_left_out: true, hidden_rows_put_back: [], rows_left_out: [] });

    // Approve: the confirmation says the rows the sheet hides are left out; the output lacks Bob and the "Total" line.
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await dialog.getByText('The 2 rows the sheet hides are left out: they will not be delivered.').waitFor();
    await dialog.getByRole('button', { name: 'Yes, approve' }).click();
    const done = await waitForRun(suite.svc, suite.org.apiKey, run.id, (r) => r.status === 'completed' && r.stage === 'final', 30_000);
    expect(done.rows_excluded).toBe(2);
    const output = (await (await fetch(done.download_url)).json()) as { email: string | null; first_name: string | null }[];
    expect(output.map((r) => r.first_name)).toEqual(['ANN', 'CY', 'DEE']);
    // Closed: the notice as text, no buttons.
    await page.getByText('The 2 rows the sheet hides, which you left out, are not in the output.').waitFor({ timeout: 30_000 });
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(
      '2 rows are hidden in the workbook (rows 2, 4). Excel does not show them; they were read like the other rows.',
    );
    await expect(notice.locator('button').count()).resolves.toBe(0);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '03-approved-1100-light');
    await page.context().close();
  }, 120_000);

  it('stops "Leave all hidden rows out" at the first refusal and says where, the hidden rows not all known', async () => {
    const run = await suite.readyRun({ content: await workbook(), filename: 'people.xlsx', mapping: MAPPING });
    const page = await openUnknown(run.review_url);
    await page.getByText('1 of 5 rows has problems.').waitFor();
    // The service refuses the second row (as it would a fix past its limit).
    let asked = 0;
    await page.route('**/fixes?*', async (route) => {
      const body = route.request().postDataJSON() as { fix?: { row?: number } };
      if (route.request().method() === 'POST' && body.fix?.row === 4) {
        asked++;
        return route.fulfill({
          status: 422,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'too_many_fixes', message: 'Too many fixes.', type: 'validation' } }),
        });
      }
      return route.fallback();
    });
    await page.locator('#hidden-rows-leave-all').click();
    await page.locator('#live', { hasText: 'Row 4 was not left out:' }).waitFor();
    await expect(live(page)).resolves.toMatch(/^Row 4 was not left out: .+ Stopped there: 1 of 2 hidden rows was left out\.$/);
    expect(asked).toBe(1);
    // Row 2 is left out (and drawn so), row 4 still has its button.
    await expect(
      reviewApi(run.review_url)
        .state()
        .then((r) => r.body.rows_left_out),
    ).resolves.toEqual([2]);
    await page.locator('#rows-left-out', { hasText: '2' }).waitFor();
    await expect(page.locator('#hidden-rows').getByRole('button').allInnerTexts()).resolves.toEqual(['Leave out']);
    await expect(page.locator('#hidden-rows').getByRole('button', { name: 'Leave out row 4' }).count()).resolves.toBe(1);
    await page.context().close();
  });

  it('names the first 50 of 60 hidden rows and how many more; not all known, "Leave all hidden rows out" leaves the 60 out one by one', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('People');
    ws.addRow(['E-mail', 'First', 'Years', 'Birthday']);
    // 70 records; rows 5 to 64 hidden (a filtered view).
    for (let i = 1; i <= 70; i++) ws.addRow([`p${i}@x.org`, `P${i}`, 20 + (i % 50), '01/01/1990']).hidden = i >= 5 && i <= 64;
    const run = await suite.readyRun({ content: Buffer.from(await wb.xlsx.writeBuffer()), filename: 'people.xlsx', mapping: MAPPING });
    const page = await openUnknown(run.review_url);
    const named = Array.from({ length: 50 }, (_, i) => String(i + 5)).join(', ');
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(
      `60 rows are hidden in the workbook (rows ${named} and 10 more). Excel does not show them, but they are delivered like the others unless you leave them out.`,
    );
    const notice = page.locator('#hidden-rows');
    await expect(notice.locator('button.leave-out').count()).resolves.toBe(50);
    await expect(notice.getByRole('button', { name: 'Leave out row 54', exact: true }).count()).resolves.toBe(1);
    await expect(notice.getByRole('button', { name: 'Leave out row 55', exact: true }).count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-listed').innerText()).resolves.toBe('Listed: 1 to 50 of 60');
    await page.getByText('No problems found in 70 rows.').waitFor();
    // What the live region says on the way, as it says it.
    await page.evaluate(() => {
      const said: string[] = [];
      (window as unknown as { said: string[] }).said = said;
      const region = document.getElementById('live')!;
      new MutationObserver(() => said.push(region.innerText)).observe(region, { childList: true, subtree: true, characterData: true });
    });
    await notice.getByRole('button', { name: 'Leave all hidden rows out' }).click();
    await page
      .getByText('60 hidden rows left out. The rows were checked again. Rows with problems: 0 before, 0 now.')
      .waitFor({ timeout: 60_000 });
    const said = await page.evaluate(() => (window as unknown as { said: string[] }).said);
    const progress = said.filter((text) => text.startsWith('Leaving the hidden rows out:'));
    expect(progress[0]).toBe('Leaving the hidden rows out: 0 of 60…');
    const counts = progress.map((text) => Number(/: (\d+) of 60…$/.exec(text)?.[1]));
    expect(counts.every((n, i) => n >= 0 && n < 60 && (i === 0 || n >= counts[i - 1]))).toBe(true);
    expect(said.at(-1)).toBe('60 hidden rows left out. The rows were checked again. Rows with problems: 0 before, 0 now.');
    const leftOut = (await reviewApi(run.review_url).state()).body.rows_left_out as number[];
    expect(leftOut).toEqual(Array.from({ length: 60 }, (_, i) => i + 5));
    await expect(notice.locator('button').count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-all-out').innerText()).resolves.toMatch(/^All 60 hidden rows are left out/);
    await page.context().close();
  }, 120_000);

  it('lists the hidden rows still delivered 50 at a time, each reached by keyboard, the focus kept; 360 px light and dark', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('People');
    ws.addRow(['E-mail', 'First', 'Years', 'Birthday']);
    // 60 records; rows 5 to 56 hidden: 52, two past the first 50.
    for (let i = 1; i <= 60; i++) ws.addRow([`p${i}@x.org`, `P${i}`, 20 + (i % 50), '01/01/1990']).hidden = i >= 5 && i <= 56;
    const run = await suite.readyRun({ content: Buffer.from(await wb.xlsx.writeBuffer()), filename: 'people.xlsx', mapping: MAPPING });
    const rowButtons = (page: Page) =>
      page.locator('#hidden-rows button.leave-out').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label')));
    const turner = (page: Page, name: 'Previous hidden rows' | 'Next hidden rows') =>
      page.locator('#hidden-rows').getByRole('button', { name, exact: true });

    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await suite.openPage(run.review_url, { width: 360, colorScheme, ready: '#hidden-rows' });
      await phone.getByText('No problems found in 60 rows.').waitFor();
      await expect(phone.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      for (const name of ['Previous hidden rows', 'Next hidden rows'] as const) {
        const box = await turner(phone, name).boundingBox();
        expect({ name, big: box!.width >= 24 && box!.height >= 24, inside: box!.x >= 0 && box!.x + box!.width <= 360 }).toEqual({
          name,
          big: true,
          inside: true,
        });
      }
      // The tag by a hidden row's number does not widen the number's column (which stays in sight and covers the
      // values): the eye alone is drawn under the number, inside the screen; the words stay in the row header's name.
      const fifth = phone.locator('#preview tbody tr >> nth=4');
      const tag = await fifth.locator('.hidden-tag').boundingBox();
      expect(tag!.x >= 0 && tag!.x + tag!.width <= 360).toBe(true);
      const column = await numberColumn(phone, 'preview');
      expect(column.drawn).toBe(column.withoutTags);
      expect((await fifth.locator('.hidden-tag svg').boundingBox())!.width).toBeGreaterThanOrEqual(12);
      expect((await fifth.locator('.hidden-tag-words').boundingBox())!.width).toBeLessThanOrEqual(1);
      await expect(
        phone.locator('#preview').getByRole('rowheader', { name: '5 Leave row 5 out Hidden in the workbook', exact: true }).count(),
      ).resolves.toBe(1);
      await expect(axeViolations(phone)).resolves.toEqual([]);
      await phone.locator('#hidden-rows .hidden-rows-pager').scrollIntoViewIfNeeded();
      await phone.screenshot({ path: join(SHOTS, `06-pager-360-${colorScheme}.png`) });
      await phone.locator('section:has(#preview-title)').screenshot({ path: join(SHOTS, `06-preview-360-${colorScheme}.png`) });
      await phone.context().close();
    }

    const page = await suite.openPage(run.review_url, { ready: '#hidden-rows' });
    await page.getByText('No problems found in 60 rows.').waitFor();
    const listed = () => page.locator('#hidden-rows-listed').innerText();
    const first50 = Array.from({ length: 50 }, (_, i) => `Leave out row ${i + 5}`);
    await expect(rowButtons(page)).resolves.toEqual(first50);
    await expect(listed()).resolves.toBe('Listed: 1 to 50 of 52');
    // At the start, "Previous hidden rows" is aria-disabled (not disabled: it keeps the keyboard).
    await expect(turner(page, 'Previous hidden rows').getAttribute('aria-disabled')).resolves.toBe('true');
    await expect(turner(page, 'Next hidden rows').getAttribute('aria-disabled')).resolves.toBeNull();
    await expect(turner(page, 'Next hidden rows').getAttribute('aria-controls')).resolves.toBe('hidden-rows-in-list');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '07-pager-1100-light');

    // By keyboard: the next 50 (two here), said in the page's message; the keyboard stays on the button pressed.
    await expect(tabTo(page, 'Next hidden rows', 80)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await expect(rowButtons(page)).resolves.toEqual(['Leave out row 55', 'Leave out row 56']);
    await expect(listed()).resolves.toBe('Listed: 51 to 52 of 52');
    await expect(live(page)).resolves.toBe('Listed: 51 to 52 of 52');
    await expect(descriptionOf(page, 'Next hidden rows')).resolves.toBe('Listed: 51 to 52 of 52');
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-next', name: 'Next hidden rows' });
    await expect(turner(page, 'Next hidden rows').getAttribute('aria-disabled')).resolves.toBe('true');
    await expect(turner(page, 'Previous hidden rows').getAttribute('aria-disabled')).resolves.toBeNull();
    // At the end, Enter does nothing more.
    await page.keyboard.press('Enter');
    await expect(rowButtons(page)).resolves.toEqual(['Leave out row 55', 'Leave out row 56']);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '08-pager-next-1100-light');
    // Back, and forth again.
    await page.keyboard.press('Shift+Tab');
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-prev', name: 'Previous hidden rows' });
    await page.keyboard.press('Enter');
    await expect(rowButtons(page)).resolves.toEqual(first50);
    await expect(live(page)).resolves.toBe('Listed: 1 to 50 of 52');
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-prev', name: 'Previous hidden rows' });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(rowButtons(page)).resolves.toEqual(['Leave out row 55', 'Leave out row 56']);

    // Row 56, the last one, left out by keyboard: the keyboard goes to the row before it, none being after it.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect(focused(page)).resolves.toEqual({ id: '', name: 'Leave out row 56' });
    await page.keyboard.press('Enter');
    await page.getByText('Row 56 left out. The rows were checked again. Rows with problems: 0 before, 0 now.').waitFor();
    await expect(rowButtons(page)).resolves.toEqual(['Leave out row 55']);
    // One row on the last 50: that row, not a range of it.
    await expect(listed()).resolves.toBe('Listed: row 51 of 51');
    // As a screen reader hears it with the pager's buttons, which it describes.
    for (const name of ['Previous hidden rows', 'Next hidden rows']) {
      await expect(descriptionOf(page, name)).resolves.toBe('Listed: row 51 of 51');
    }
    await expect(focused(page)).resolves.toEqual({ id: '', name: 'Leave out row 55' });
    // Row 55 too: 50 are still delivered, all listed, no more turning; the keyboard goes to the last of them.
    await page.keyboard.press('Enter');
    await page.getByText('Row 55 left out. The rows were checked again. Rows with problems: 0 before, 0 now.').waitFor();
    await expect(rowButtons(page)).resolves.toEqual(first50);
    await expect(page.locator('#hidden-rows-listed, #hidden-rows-prev, #hidden-rows-next').count()).resolves.toBe(0);
    await expect(focused(page)).resolves.toEqual({ id: '', name: 'Leave out row 54' });
    expect((await reviewApi(run.review_url).state()).body.rows_left_out).toEqual([55, 56]);
    await page.context().close();
  }, 120_000);

  it('says how many rows the sheet hides past the 1,000 listed, and, not all known, what its button leaves out; keyboard, 360 px light and dark', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('People');
    ws.addRow(['E-mail', 'First', 'Years', 'Birthday']);
    // 1,300 records, the first 1,250 hidden: the read lists the first 1,000 and counts them all.
    for (let i = 1; i <= 1300; i++) ws.addRow([`p${i}@x.org`, `P${i}`, 20 + (i % 50), '01/01/1990']).hidden = i <= 1250;
    const run = await suite.readyRun({ content: Buffer.from(await wb.xlsx.writeBuffer()), filename: 'people.xlsx', mapping: MAPPING });
    const state = (await reviewApi(run.review_url).state()).body;
    // The service knows them all (one span); the page is told it does not (openUnknown).
    expect([state.hidden_rows.length, state.hidden_rows_total, state.hidden_rows_known]).toEqual([1000, 1250, true]);
    const named = Array.from({ length: 50 }, (_, i) => String(i + 1)).join(', ');
    const words =
      `1,250 rows are hidden in the workbook. The first 1,000 are listed here (rows ${named} and 950 more). ` +
      'Excel does not show them, but they are delivered like the others unless you leave them out. ' +
      'The other 250 are delivered like any row: they are neither listed here nor marked in the tables.';
    const limit = 'Each row left out is one fix, and at most 1,000 fixes can be in force.';

    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await openUnknown(run.review_url, { width: 360, colorScheme });
      await phone.getByText('No problems found in 1,300 rows.').waitFor();
      await expect(phone.locator('#hidden-rows-text').innerText()).resolves.toBe(words);
      await expect(phone.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      const button = phone.locator('#hidden-rows').getByRole('button', { name: 'Leave the listed hidden rows out', exact: true });
      const box = await button.boundingBox();
      expect({ big: box!.width >= 24 && box!.height >= 24, inside: box!.x >= 0 && box!.x + box!.width <= 360 }).toEqual({
        big: true,
        inside: true,
      });
      await expect(axeViolations(phone)).resolves.toEqual([]);
      await phone.locator('#hidden-rows-text').scrollIntoViewIfNeeded();
      await phone.locator('#hidden-rows').screenshot({ path: join(SHOTS, `09-more-than-listed-360-${colorScheme}-notice.png`) });
      await phone.context().close();
    }

    const page = await openUnknown(run.review_url);
    await page.getByText('No problems found in 1,300 rows.').waitFor();
    const notice = page.locator('#hidden-rows');
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(words);
    // The notice is named by those words; the list says how many are listed, and turns them 50 at a time.
    await expect(page.getByRole('note', { name: words, exact: true }).count()).resolves.toBe(1);
    await expect(page.locator('#hidden-rows-listed').innerText()).resolves.toBe('Listed: 1 to 50 of 1,000');
    // Its button says it leaves out the listed rows (not "all hidden rows"), described by the limit on fixes.
    await expect(notice.getByRole('button', { name: 'Leave all hidden rows out' }).count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-limit').innerText()).resolves.toBe(limit);
    await expect(
      page.getByRole('button', { name: 'Leave the listed hidden rows out', exact: true }).getAttribute('aria-describedby'),
    ).resolves.toBe('hidden-rows-limit');
    await expect(
      page.evaluate(() => {
        const button = document.getElementById('hidden-rows-leave-all')!;
        return document.getElementById(button.getAttribute('aria-describedby')!)!.innerText;
      }),
    ).resolves.toBe(limit);
    // Reached by keyboard, past the 50 listed rows' buttons and the pager.
    await expect(tabTo(page, 'Leave the listed hidden rows out', 120)).resolves.toBe(true);
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-leave-all', name: 'Leave the listed hidden rows out' });
    // The tables mark the listed rows (the preview's first 20 are all of them).
    await expect(rowMarks(page, 'preview')).resolves.toEqual(Array.from({ length: 20 }, () => 'hidden'));
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '09-more-than-listed-1100-light');

    // Approved: the closed notice still says how many, without the buttons.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog', { name: 'Approve this mapping?' }).getByRole('button', { name: 'Yes, approve' }).click();
    await waitForRun(suite.svc, suite.org.apiKey, run.id, (r) => r.status === 'completed' && r.stage === 'final', 60_000);
    await page.locator('#hidden-rows-text', { hasText: 'they were read like the other rows' }).waitFor({ timeout: 30_000 });
    await expect(notice.locator('button').count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(
      `1,250 rows are hidden in the workbook. The first 1,000 are listed here (rows ${named} and 950 more). ` +
        'Excel does not show them; they were read like the other rows.',
    );
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.context().close();
  }, 180_000);

  it('leaves out all 1,200 rows a sheet hides in three spans with one fix, past the 1,000 listed; puts them back; keyboard, 360 px light and dark', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('People');
    ws.addRow(['E-mail', 'First', 'Years', 'Birthday']);
    // 1,300 records, a filter's leftovers: 1-500, 531-800 and 831-1,260 hidden (1,200 in three spans). Record 10
    // (hidden) and record 1,270 (shown) lack their e-mail: two rows with problems, one of them hidden.
    const hidden = (i: number) => i <= 500 || (i > 530 && i <= 800) || (i > 830 && i <= 1260);
    for (let i = 1; i <= 1300; i++)
      ws.addRow([i === 10 || i === 1270 ? '' : `p${i}@x.org`, `P${i}`, 20 + (i % 50), '01/01/1990']).hidden = hidden(i);
    const run = await suite.readyRun({ content: Buffer.from(await wb.xlsx.writeBuffer()), filename: 'filtered.xlsx', mapping: MAPPING });
    const api = reviewApi(run.review_url);
    const first = (await api.state()).body;
    expect([first.hidden_rows.length, first.hidden_rows_total, first.hidden_rows_known, first.hidden_rows_left_out]).toEqual([
      1000,
      1200,
      true,
      false,
    ]);
    const named = Array.from({ length: 50 }, (_, i) => String(i + 1)).join(', ');
    const listed = `1,200 rows are hidden in the workbook. The first 1,000 are listed here (rows ${named} and 950 more).`;

    const page = await suite.openPage(run.review_url, { ready: '#hidden-rows' });
    await page.getByText('2 of 1,300 rows have problems.').waitFor();
    const notice = page.locator('#hidden-rows');
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(
      `${listed} Excel does not show them, but they are delivered like the others unless you leave them out. ` +
        'The other 200 are delivered like any row: they are neither listed here nor marked in the tables.',
    );
    // One button leaves them all out, the 200 unlisted too: no "listed" button, no limit on fixes said.
    await expect(notice.getByRole('button', { name: 'Leave all hidden rows out', exact: true }).count()).resolves.toBe(1);
    await expect(notice.getByRole('button', { name: 'Leave the listed hidden rows out' }).count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-limit').count()).resolves.toBe(0);
    await expect(page.locator('#hidden-rows-leave-all').getAttribute('aria-describedby')).resolves.toBeNull();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '10-known-1100-light');

    // By keyboard, past the 50 listed rows' buttons and the pager: Enter sends one fix, not 1,200.
    const fixesSent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/fixes\?/.test(request.url())) fixesSent.push(request.postData() ?? '');
    });
    await expect(tabTo(page, 'Leave all hidden rows out', 120)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    const leftWords = '1,200 hidden rows left out. The rows were checked again. Rows with problems: 2 before, 1 now.';
    await page.locator('#live', { hasText: leftWords }).waitFor();
    expect(fixesSent.map((body) => JSON.parse(body) as unknown)).toEqual([
      { fix: { kind: 'leave_out_hidden' }, expected_mapping_version: first.mapping_version },
    ]);
    const out = (await api.state()).body;
    expect([out.hidden_rows_left_out, out.hidden_rows_put_back, out.rows_left_out]).toEqual([true, [], []]);
    expect(out.value_fixes).toMatchObject([{ field: '', fix: { kind: 'leave_out_hidden' } }]);
    // The notice says all are left out; its one button puts them back, and has the keyboard.
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toBe(`${listed} Excel does not show them.`);
    await expect(page.locator('#hidden-rows-all-out').innerText()).resolves.toBe(
      'All 1,200 hidden rows are left out: they are not delivered.',
    );
    await expect(notice.getByRole('button').allInnerTexts()).resolves.toEqual(['Put the hidden rows back']);
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-put-back', name: 'Put the hidden rows back' });
    // The preview's first 20 rows, all hidden, are tagged "Left out" (not "Hidden in the workbook": not delivered).
    await expect(rowMarks(page, 'preview')).resolves.toEqual(Array.from({ length: 20 }, () => 'out'));
    await expect(page.locator('#preview').getByRole('rowheader', { name: '3 Put row 3 back Left out', exact: true }).count()).resolves.toBe(
      1,
    );
    // The fixes: one in force, said as the hidden rows left out; the rows left out list them as one entry.
    await expect(page.locator('#fixes-count').innerText()).resolves.toBe('Fixes in force: 1');
    await expect(page.locator('#fix-latest').innerText()).resolves.toBe('Latest fix: the hidden rows left out');
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Rows left out:\s*1,200 hidden rows\s*Put back$/);
    await expect(
      page.locator('#rows-left-out').getByRole('button', { name: 'Put back the 1,200 hidden rows', exact: true }).count(),
    ).resolves.toBe(1);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '11-known-all-out-1100-light');
    // The approval's confirmation says so (then "Go back").
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await dialog.getByText('The 1,200 rows the sheet hides are left out: they will not be delivered.').waitFor();
    await page.screenshot({ path: join(SHOTS, '12-known-confirm-1100-light.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // 360 px light and dark, and 1100 px dark: inside the screen, targets of 24 px at least, axe-core clean.
    for (const [width, colorScheme] of [
      [360, 'light'],
      [360, 'dark'],
      [1100, 'dark'],
    ] as const) {
      const phone = await suite.openPage(run.review_url, { width, colorScheme, ready: '#hidden-rows-put-back' });
      await expect(phone.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
      for (const [where, name] of [
        ['#hidden-rows', 'Put the hidden rows back'],
        ['#rows-left-out', 'Put back the 1,200 hidden rows'],
      ]) {
        const box = await phone.locator(where).getByRole('button', { name, exact: true }).boundingBox();
        expect({ name, big: box!.width >= 24 && box!.height >= 24, inside: box!.x >= 0 && box!.x + box!.width <= width }).toEqual({
          name,
          big: true,
          inside: true,
        });
      }
      await expect(axeViolations(phone)).resolves.toEqual([]);
      await shoot(phone, `13-known-all-out-${width}-${colorScheme}`);
      await phone.context().close();
    }

    // Row 3 put back on its own, by keyboard on its number in the preview: delivered, listed with its own "Leave out".
    await page.locator('#preview').getByRole('rowheader', { name: '3 Put row 3 back Left out', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#live', { hasText: 'Row 3 put back. The rows were checked again.' }).waitFor();
    expect((await api.state()).body).toMatchObject({ hidden_rows_left_out: true, hidden_rows_put_back: [3], rows_left_out: [] });
    await expect(page.locator('#hidden-rows-all-out').innerText()).resolves.toBe(
      '1,199 of the 1,200 hidden rows are left out, all but those you put back: they are not delivered.',
    );
    await expect(page.locator('#hidden-rows-in-title').innerText()).resolves.toBe('Hidden row still delivered:');
    await expect(
      notice.getByRole('button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent)),
    ).resolves.toEqual(['Leave out row 3', 'Put the hidden rows back']);
    await expect(rowMarks(page, 'preview')).resolves.toEqual(Array.from({ length: 20 }, (_, i) => (i === 2 ? 'hidden' : 'out')));
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '14-known-one-put-back-1100-light');
    await page.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByText('1,199 of the 1,200 rows the sheet hides are left out: they will not be delivered.').waitFor();
    await dialog.getByText('Row 3, hidden and put back by you, will be delivered.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // "Put the hidden rows back", by keyboard: all delivered again; the keyboard goes to "Leave all hidden rows out".
    await notice.getByRole('button', { name: 'Put the hidden rows back', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page
      .locator('#live', { hasText: '1,199 hidden rows put back. The rows were checked again. Rows with problems: 1 before, 2 now.' })
      .waitFor();
    expect((await api.state()).body).toMatchObject({ hidden_rows_left_out: false, hidden_rows_put_back: [], rows_left_out: [] });
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-leave-all', name: 'Leave all hidden rows out' });
    await expect(page.locator('#hidden-rows-all-out, #hidden-rows-put-back, #rows-left-out').count()).resolves.toBe(0);
    await expect(page.locator('#fix-latest').innerText()).resolves.toBe('Latest fix: the hidden rows put back');
    await expect(rowMarks(page, 'preview')).resolves.toEqual(Array.from({ length: 20 }, () => 'hidden'));

    // Undone: left out again but for row 3; row 3 left out on its own too, it is one of them (not listed apart).
    await page.getByRole('button', { name: 'Undo last fix' }).click();
    await page.locator('#live', { hasText: 'Last fix undone: the hidden rows are left out again. The rows were checked again.' }).waitFor();
    await notice.getByRole('button', { name: 'Leave out row 3', exact: true }).click();
    await page.locator('#live', { hasText: 'Row 3 left out. The rows were checked again.' }).waitFor();
    await expect(focused(page)).resolves.toEqual({ id: 'hidden-rows-put-back', name: 'Put the hidden rows back' });
    expect((await api.state()).body).toMatchObject({ hidden_rows_left_out: true, hidden_rows_put_back: [], rows_left_out: [] });
    await expect(page.locator('#hidden-rows-all-out').innerText()).resolves.toBe(
      'All 1,200 hidden rows are left out: they are not delivered.',
    );
    await expect(page.locator('#rows-left-out').innerText()).resolves.toMatch(/^Rows left out:\s*1,200 hidden rows\s*Put back$/);

    // Approved: the confirmation and the closed page say the hidden rows left out; the output has the 100 shown rows.
    await page.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByText('The 1,200 rows the sheet hides are left out: they will not be delivered.').waitFor();
    await expect(dialog.getByText(/you left out/).count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Yes, approve' }).click();
    const done = await waitForRun(suite.svc, suite.org.apiKey, run.id, (r) => r.status === 'completed' && r.stage === 'final', 60_000);
    expect(done.rows_excluded).toBe(1200);
    const output = (await (await fetch(done.download_url)).json()) as { first_name: string | null }[];
    expect(output.map((r) => r.first_name)).toEqual(
      Array.from({ length: 1300 }, (_, i) => i + 1)
        .filter((i) => !hidden(i))
        .map((i) => `P${i}`),
    );
    await page.getByText('The 1,200 rows the sheet hides, which you left out, are not in the output.').waitFor({ timeout: 30_000 });
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '15-known-approved-1100-light');
    await page.context().close();
  }, 240_000);

  it('fits 360 px in light and dark, reads right to left in Arabic, axe-core clean; no notice without hidden rows', async () => {
    const run = await suite.readyRun({ content: await workbook(), filename: 'people.xlsx', mapping: MAPPING });
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await suite.openPage(run.review_url, { width: 360, colorScheme, ready: '#hidden-rows' });
      await expect(phone.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      for (const name of ['Leave out row 2', 'Leave out row 4', 'Leave all hidden rows out']) {
        const box = await phone.locator('#hidden-rows').getByRole('button', { name }).boundingBox();
        // A target of 24 px at least (WCAG 2.5.8), inside the screen.
        expect({ name, big: box!.width >= 24 && box!.height >= 24, inside: box!.x >= 0 && box!.x + box!.width <= 360 }).toEqual({
          name,
          big: true,
          inside: true,
        });
      }
      // Neither table's row numbers' column is widened by the tag (row 4, the "Total" line, is in both).
      await phone.locator('#problem-rows tbody tr').first().waitFor();
      for (const table of ['preview', 'problem-rows']) {
        const column = await numberColumn(phone, table);
        expect({ table, ...column }).toEqual({ table, drawn: column.withoutTags, withoutTags: column.withoutTags });
      }
      await expect(axeViolations(phone)).resolves.toEqual([]);
      await shoot(phone, `04-360-${colorScheme}`);
      await phone.context().close();
    }

    const arabic = await suite.readyRun({ content: await workbook(), filename: 'people.xlsx', mapping: MAPPING, body: { locale: 'ar' } });
    const context = await suite.browser.newContext({ viewport: { width: 360, height: 800 }, colorScheme: 'dark', locale: 'ar' });
    const page = await context.newPage();
    await page.goto(arabic.review_url);
    await page.locator('#hidden-rows').waitFor();
    await expect(page.evaluate(() => document.documentElement.dir)).resolves.toBe('rtl');
    await expect(page.locator('#hidden-rows-text').innerText()).resolves.toMatch(/^صفان مخفيان في المصنّف/);
    const notice = page.locator('#hidden-rows');
    await expect(notice.getByRole('button', { name: /^استبعاد الصف (2|٢)$/ }).count()).resolves.toBe(1);
    await expect(notice.getByRole('button', { name: 'استبعاد كل الصفوف المخفية' }).count()).resolves.toBe(1);
    // The tag by a hidden row's number, in Arabic, on the right of the row (its start).
    await expect(page.locator('#preview tbody tr >> nth=1').locator('.hidden-tag').innerText()).resolves.toBe('مخفي في المصنّف');
    await expect(
      page
        .locator('#preview')
        .getByRole('rowheader', { name: /مخفي في المصنّف$/ })
        .count(),
    ).resolves.toBe(2);
    const column = await numberColumn(page, 'preview');
    expect(column.drawn).toBe(column.withoutTags);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await shoot(page, '05-arabic-360-dark');
    await context.close();

    const plain = await suite.readyRun({ content: await workbook(false), filename: 'people.xlsx', mapping: MAPPING });
    expect((await reviewApi(plain.review_url).state()).body.hidden_rows).toEqual([]);
    const none = await suite.openPage(plain.review_url, { ready: '#preview tbody tr >> nth=0' });
    await expect(none.locator('#hidden-rows, [data-notice="hidden_rows"]').count()).resolves.toBe(0);
    await none.context().close();
  }, 120_000);
});
