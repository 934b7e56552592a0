/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { axeViolations, screenshot } from '../support/browser';
import { reviewBrowserSuite } from '../support/review-browser';
import { call, reviewApi, waitForRun } from '../support/service-harness';

/**
 * The review page's tables as grids that edit like a spreadsheet, in Debian's Chromium: one tab
 * stop per grid from outside, Tab and Shift+Tab to the adjacent cell (across a row's end) and out of
 * the grid past its last and before its first cell, the arrow keys (in the visual direction on a
 * right-to-left page), Home/End and Ctrl+Home/End; Enter, F2, a double click and typing a character
 * open a bad cell's editor, Escape discards and gives the focus back to the cell, Enter saves, Tab
 * and Shift+Tab in the editor save and move to the next or previous cell.
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
// Columns of each grid: 0 the row's number, then email, first_name, age, born.
const EMAIL = 1;
const AGE = 3;
const BORN = 4;

/** Where the keyboard is: a body cell of a grid (its table, row index, cell index and text), or another element. */
interface Focus {
  table?: string;
  row?: number;
  col?: number;
  text?: string;
  id?: string;
  tag?: string;
}
const focusOf = (page: Page): Promise<Focus> =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (el && (el.tagName === 'TD' || el.tagName === 'TH') && el.closest('tbody')) {
      const cell = el as HTMLTableCellElement;
      return {
        table: cell.closest('table')!.id,
        row: (cell.parentElement as HTMLTableRowElement).sectionRowIndex,
        col: cell.cellIndex,
        text: cell.innerText,
      };
    }
    return { id: el?.id ?? '', tag: el?.tagName ?? '' };
  });

/** Waits (briefly) until the keyboard is on this cell. */
async function focusIsOn(page: Page, want: { table: string; row: number; col: number }): Promise<Focus> {
  const where = (w: typeof want) => {
    const el = document.activeElement as HTMLTableCellElement | null;
    return (
      !!el &&
      el.closest('table')?.id === w.table &&
      el.cellIndex === w.col &&
      (el.parentElement as HTMLTableRowElement).sectionRowIndex === w.row &&
      !!el.closest('tbody')
    );
  };
  try {
    await page.waitForFunction(where, want, { timeout: 5000 });
  } catch {
    throw new Error(`focus is not on ${JSON.stringify(want)} but on ${JSON.stringify(await focusOf(page))}`);
  }
  return focusOf(page);
}

/**
 * What a screen reader is told of the element with the keyboard: Chromium's own accessibility tree
 * (not the attributes), its role, name, description and invalid state.
 */
async function announced(page: Page): Promise<{ role?: string; name?: string; description?: string; invalid?: string }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const prop = (node: (typeof nodes)[number], name: string) =>
      node.properties?.find((p) => p.name === name)?.value.value as string | boolean | undefined;
    // The document itself is "focused" too: the element is the focused node inside it.
    const focused = nodes.find((n) => prop(n, 'focused') === true && n.role?.value !== 'RootWebArea');
    if (!focused) return {};
    return {
      role: focused.role?.value as string,
      name: focused.name?.value as string,
      description: (focused.description?.value as string | undefined) ?? '',
      invalid: String(prop(focused, 'invalid') ?? 'false'),
    };
  } finally {
    await cdp.detach();
  }
}

/** Whether a text box's description is in its own cell, under it, and inside the grid's scroll box as seen (not cut off). */
function besideInView(box: HTMLInputElement): { sameCell: boolean; below: boolean; inView: boolean } {
  const said = document.getElementById((box.getAttribute('aria-describedby') ?? '').split(' ')[0])!;
  const at = said.getBoundingClientRect();
  const wrap = box.closest('.table-wrap')!.getBoundingClientRect();
  const rowNumber = box.closest('tr')!.querySelector('th')!.getBoundingClientRect();
  return {
    sameCell: said.closest('td') === box.closest('td'),
    below: at.top >= box.getBoundingClientRect().bottom - 1,
    // Not under the row number, which stays in sight over the row when it scrolls sideways.
    inView: at.left >= rowNumber.right - 1 && at.right <= Math.min(wrap.right, window.innerWidth) + 1 && at.bottom <= window.innerHeight,
  };
}

describe('review page grids in Chromium', () => {
  const suite = reviewBrowserSuite();

  /** A run of its own schema (an approved mapping is remembered per schema), in review with the whole mapping. */
  const readyRun = (body: Record<string, unknown> = {}, csv = CSV) => suite.readyRun({ content: csv, body, mapping: MAPPING });

  async function openPage(url: string, width = 1100): Promise<Page> {
    const context = await suite.browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(url);
    // The rows with problems are listed once the whole file is counted.
    await page.locator('#problem-rows tbody tr').first().waitFor();
    return page;
  }

  /** Tabs from the scroll region around a grid into the grid: its one tab stop. */
  async function tabInto(page: Page, table: 'preview' | 'problem-rows'): Promise<Focus> {
    await page.locator(`.table-wrap:has(#${table})`).focus();
    await page.keyboard.press('Tab');
    return focusOf(page);
  }

  const editor = (page: Page, field: string, row: number) => page.getByRole('textbox', { name: `New value of ${field} in row ${row}` });
  const caret = (page: Page) =>
    page.evaluate(() => {
      const input = document.activeElement as HTMLInputElement;
      return { value: input.value, start: input.selectionStart, end: input.selectionEnd };
    });

  it('opens a bad cell by Enter, F2, double click and typing; Escape discards and gives the cell the focus; Enter saves', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await page.getByText('3 of 6 rows have problems.').waitFor();
    const preview = page.getByRole('grid', { name: 'First 6 rows as they will be delivered' });
    await expect(preview.count()).resolves.toBe(1);

    // Tab lands on the grid's one tab stop: its first cell with a problem, announced with the problem.
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: EMAIL });
    const bad = preview.getByRole('gridcell', { name: /Required value missing/ });
    await expect(bad.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(bad.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#preview [tabindex="0"]').count()).resolves.toBe(1);

    // Enter: the editor, named by its field and row, with the value (blank here); Escape puts the cell back.
    await page.keyboard.press('Enter');
    await expect(editor(page, 'Email', 2).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(caret(page)).resolves.toEqual({ value: '', start: 0, end: 0 });
    await page.keyboard.type('bob@x.org');
    await page.keyboard.press('Escape');
    await expect(editor(page, 'Email', 2).count()).resolves.toBe(0);
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: EMAIL })).resolves.toMatchObject({
      text: expect.stringContaining('Required value missing'),
    });

    // F2 on row 3's age: its value, the caret at its end.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect(focusIsOn(page, { table: 'preview', row: 2, col: AGE })).resolves.toMatchObject({ text: expect.stringContaining('abc') });
    await page.keyboard.press('F2');
    await editor(page, 'age', 3).waitFor();
    await expect(caret(page)).resolves.toEqual({ value: 'abc', start: 3, end: 3 });
    await page.keyboard.press('Escape');
    await focusIsOn(page, { table: 'preview', row: 2, col: AGE });

    // A double click on row 5's age.
    await preview
      .locator('tbody tr')
      .nth(4)
      .locator('td')
      .nth(AGE - 1)
      .dblclick();
    await editor(page, 'age', 5).waitFor();
    await expect(caret(page)).resolves.toEqual({ value: 'x1', start: 2, end: 2 });
    await screenshot(page, 'grid-01-editor-by-double-click');
    await page.keyboard.press('Escape');
    await focusIsOn(page, { table: 'preview', row: 4, col: AGE });

    // Typing on a cell without a problem opens nothing.
    await page.keyboard.press('ArrowUp');
    await focusIsOn(page, { table: 'preview', row: 3, col: AGE });
    await page.keyboard.type('9');
    await expect(page.locator('#preview .cell-edit').count()).resolves.toBe(0);
    await focusIsOn(page, { table: 'preview', row: 3, col: AGE });

    // Nothing was saved by all that.
    expect((await reviewApi(run.review_url).state()).body.value_fixes).toEqual([]);

    // Typing a character on a bad cell starts its editor with that character instead of the value; Enter saves.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('4');
    await editor(page, 'age', 3).waitFor();
    await page.keyboard.press('2');
    await expect(caret(page)).resolves.toEqual({ value: '42', start: 2, end: 2 });
    await page.keyboard.press('Enter');
    await page.getByText('2 of 6 rows have problems.').waitFor();
    // The keyboard is back on the cell saved, which shows its new value.
    await expect(focusIsOn(page, { table: 'preview', row: 2, col: AGE })).resolves.toMatchObject({ text: '42' });
    await page.getByText('Fix saved.', { exact: false }).waitFor();

    // Saved: a reload shows it, and the service holds the cell edit.
    await page.reload();
    await page.getByText('2 of 6 rows have problems.').waitFor();
    await expect(
      page
        .locator('#preview tbody tr')
        .nth(2)
        .locator('td')
        .nth(AGE - 1)
        .innerText(),
    ).resolves.toBe('42');
    const fixes = (await reviewApi(run.review_url).state()).body.value_fixes;
    expect(fixes).toMatchObject([{ field: 'age', fix: { kind: 'cell', row: 3, before: 'abc', after: '42' } }]);
    await page.context().close();
  });

  it('moves with the arrows, Home/End and Ctrl+Home/End; Ctrl+End then Tab leaves the grid and Shift+Tab comes back to it', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: EMAIL });
    await page.keyboard.press('Home');
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: 0 })).resolves.toMatchObject({ text: '2' });
    await page.keyboard.press('End');
    await focusIsOn(page, { table: 'preview', row: 1, col: BORN });
    await page.keyboard.press('Control+Home');
    await expect(focusIsOn(page, { table: 'preview', row: 0, col: 0 })).resolves.toMatchObject({ text: '1' });
    // At the grid's edge the keys stay on the edge.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowLeft');
    await focusIsOn(page, { table: 'preview', row: 0, col: 0 });
    await page.keyboard.press('Control+End');
    await focusIsOn(page, { table: 'preview', row: 5, col: BORN });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'preview', row: 5, col: BORN });
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowUp');
    await focusIsOn(page, { table: 'preview', row: 4, col: AGE });
    // One tab stop: the cell last on.
    await expect(page.locator('#preview [tabindex="0"]').count()).resolves.toBe(1);

    // Ctrl+End then Tab leaves the grid for what follows it; Shift+Tab comes back to the cell it left.
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Tab');
    const after = await focusOf(page);
    expect(after.table).toBeUndefined();
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 5, col: BORN });

    // The rows with problems are a grid too (rows 2, 3 and 5); a save from its keyboard editor
    // brings the keyboard back to the same place in the list, now holding the next row with a problem.
    const listed = page.getByRole('grid', { name: 'Rows with problems' });
    await expect(listed.locator('tbody th').allInnerTexts()).resolves.toEqual(['2', '3', '5']);
    await expect(tabInto(page, 'problem-rows')).resolves.toMatchObject({ table: 'problem-rows', row: 0, col: EMAIL });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'problem-rows', row: 1, col: AGE });
    await page.keyboard.press('Enter');
    await editor(page, 'age', 3).fill('7');
    await page.keyboard.press('Enter');
    await page.getByText('Page 1 of 1 · matching rows: 2').waitFor();
    await expect(listed.locator('tbody th').allInnerTexts()).resolves.toEqual(['2', '5']);
    await expect(focusIsOn(page, { table: 'problem-rows', row: 1, col: AGE })).resolves.toMatchObject({
      text: expect.stringContaining('x1'),
    });
    await page.context().close();
  });

  it('moves with Tab and Shift+Tab to the adjacent cell, across a row’s end, and out of the grid past its last and before its first cell', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await page.getByText('3 of 6 rows have problems.').waitFor();
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: EMAIL });
    // Every cell is a stop, the good ones too: row 2's first name, age and birthday, then row 3's number.
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: EMAIL + 1 })).resolves.toMatchObject({ text: 'BOB' });
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: AGE })).resolves.toMatchObject({ text: '31' });
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: BORN })).resolves.toMatchObject({ text: '1990-01-02' });
    // From a row's last cell to the next row's first (its number), and back.
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 2, col: 0 })).resolves.toMatchObject({ text: '3' });
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 1, col: BORN });
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 1, col: AGE });
    // Still one tab stop in the grid: the cell Tab moved to.
    await expect(page.locator('#preview [tabindex="0"]').count()).resolves.toBe(1);
    await expect(page.locator('#preview [tabindex="0"]').evaluate((el) => el === document.activeElement)).resolves.toBe(true);

    // Enter on a bad cell Tab reached opens its editor, as on any bad cell; on a good one it opens nothing.
    await page.keyboard.press('Enter');
    await expect(page.locator('#preview .cell-edit').count()).resolves.toBe(0);
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 2, col: AGE })).resolves.toMatchObject({ text: expect.stringContaining('abc') });
    await page.keyboard.press('Enter');
    await editor(page, 'age', 3).waitFor();
    await page.keyboard.press('Escape');
    await focusIsOn(page, { table: 'preview', row: 2, col: AGE });

    // Tab on the grid's last cell leaves the grid for the next control: the field filter of the rows with problems.
    await page.keyboard.press('Control+End');
    await focusIsOn(page, { table: 'preview', row: 5, col: BORN });
    await screenshot(page, 'grid-04-tab-last-cell');
    await page.keyboard.press('Tab');
    await expect(focusOf(page)).resolves.toEqual({ id: 'problem-field', tag: 'SELECT' });
    // Shift+Tab comes back to the cell it left.
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 5, col: BORN });
    // Shift+Tab on the grid's first cell leaves it backwards, for its scroll region; Tab comes back to that cell.
    await page.keyboard.press('Control+Home');
    await focusIsOn(page, { table: 'preview', row: 0, col: 0 });
    await page.keyboard.press('Shift+Tab');
    await expect(page.locator('.table-wrap:has(#preview)').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await focusIsOn(page, { table: 'preview', row: 0, col: 0 });

    // The rows with problems: Tab walks its cells the same way, and past its last leaves for Approve
    // (the pager's buttons are disabled: one page).
    await expect(tabInto(page, 'problem-rows')).resolves.toMatchObject({ table: 'problem-rows', row: 0, col: EMAIL });
    await page.keyboard.press('Tab');
    await focusIsOn(page, { table: 'problem-rows', row: 0, col: EMAIL + 1 });
    await page.keyboard.press('End');
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'problem-rows', row: 1, col: 0 })).resolves.toMatchObject({ text: '3' });
    await page.keyboard.press('Control+End');
    await focusIsOn(page, { table: 'problem-rows', row: 2, col: BORN });
    await page.keyboard.press('Tab');
    await expect(focusOf(page)).resolves.toEqual({ id: 'approve', tag: 'BUTTON' });
    await page.context().close();
  });

  it('edits a value with a line break in a text area: left as it was, Tab and Enter record nothing; Shift+Enter starts a line, Enter saves', async () => {
    // Row 3's age reads "ab", a line break, "c" (a text box would have dropped the line break, and "unchanged" saved "abc").
    const run = await readyRun({}, CSV.replace('cy@x.org,Cy,abc,', 'cy@x.org,Cy,"ab\nc",'));
    const review = reviewApi(run.review_url);
    const page = await openPage(run.review_url);
    await page.getByText('3 of 6 rows have problems.').waitFor();
    const toAge = async () => {
      await tabInto(page, 'preview');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await focusIsOn(page, { table: 'preview', row: 2, col: AGE });
      await page.keyboard.press('F2');
      await editor(page, 'age', 3).waitFor();
    };

    await toAge();
    await expect(editor(page, 'age', 3).evaluate((el) => [el.tagName, (el as HTMLTextAreaElement).value])).resolves.toEqual([
      'TEXTAREA',
      'ab\nc',
    ]);
    await page.keyboard.press('Tab');
    await expect(editor(page, 'age', 3).count()).resolves.toBe(0);
    await focusIsOn(page, { table: 'preview', row: 2, col: BORN });
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('F2');
    await editor(page, 'age', 3).waitFor();
    await page.keyboard.press('Enter');
    await expect(editor(page, 'age', 3).count()).resolves.toBe(0);
    await focusIsOn(page, { table: 'preview', row: 2, col: AGE });
    expect((await review.state()).body.value_fixes).toEqual([]);

    // Shift+Enter keeps the line break where the caret is; Enter saves the value with its lines.
    await page.keyboard.press('F2');
    await editor(page, 'age', 3).waitFor();
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('7');
    await page.keyboard.press('Enter');
    // Said as saved, then as checked once the count is done (the count waits for the reviewer to stop).
    await page.getByText(/^Fix saved\. The rows (are being|were) checked again\.$/).waitFor();
    expect((await review.state()).body.value_fixes).toMatchObject([
      { field: 'age', fix: { kind: 'cell', row: 3, before: 'ab\nc', after: 'ab\nc\n7' } },
    ]);
  });

  it('takes the mapping another reviewer saved meanwhile when a fix is saved, and says so; approving then keeps theirs', async () => {
    const run = await readyRun();
    const review = reviewApi(run.review_url);
    const page = await openPage(run.review_url);
    await page.getByText('3 of 6 rows have problems.').waitFor();
    // Another reviewer, on another page, unmaps First.
    const version = (await review.state()).body.mapping_version;
    expect((await review.edit({ ...MAPPING, first_name: null }, version)).status).toBe(200);

    // This page still shows First mapped; a fix saved here brings the other reviewer's mapping in.
    await tabInto(page, 'preview');
    await page.keyboard.press('Enter');
    await editor(page, 'Email', 2).waitFor();
    await page.keyboard.type('bob@x.org');
    await page.keyboard.press('Enter');
    await page.getByText('Saved. Another reviewer changed the mapping in the meantime; the page now shows their version.').waitFor();
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog', { name: 'Approve this mapping?' }).getByRole('button', { name: 'Yes, approve' }).click();
    await waitForRun(suite.svc, suite.org.apiKey, run.id, (r) => r.review_state === 'approved');
    const approved = await call(`${suite.svc.baseUrl}/v1/transformations/${run.id}`, { token: suite.org.apiKey });
    expect(approved.body.mapping_rule).toMatchObject({ first_name: null, email: 'E-mail' });
  });

  it('keeps what was typed when another reviewer changed the same value meanwhile: the editor stays open with it where the value is still bad, else the message quotes it', async () => {
    const run = await readyRun();
    const review = reviewApi(run.review_url);
    const page = await openPage(run.review_url);
    await page.getByText('3 of 6 rows have problems.').waitFor();

    // Row 3's age: another reviewer puts another bad value there while this one types.
    await tabInto(page, 'problem-rows');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'problem-rows', row: 1, col: AGE });
    await page.keyboard.press('Enter');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('44');
    expect((await review.fix('age', { kind: 'cell', row: 3, before: 'abc', after: 'abd' })).status).toBe(200);
    // The rows with problems are asked for again once the count is done, and drawn afresh.
    const redrawn = page.waitForResponse((r) => r.url().includes('/problem-rows'));
    await page.keyboard.press('Enter');
    await page
      .getByText(/^Another reviewer changed the values in the meantime\. Your value “\u2068?44\u2069?” for age in row 3 was not saved/)
      .waitFor();
    // The rows show their value (the preview's), and the cell's editor is open again with what was typed, keeping the keyboard and saying why.
    await page
      .locator('#preview tbody tr')
      .nth(2)
      .locator('td')
      .nth(AGE - 1)
      .getByText('abd')
      .waitFor();
    await redrawn;
    await page.getByText('Page 1 of 1 · matching rows: 3').waitFor();
    const box = editor(page, 'age', 3);
    await expect(box.inputValue()).resolves.toBe('44');
    await expect(box.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(box.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(announced(page)).resolves.toMatchObject({
      description:
        'The fix was not saved: the value was changed in the meantime; the rows now show it as it is. It reads “\u2068abd\u2069” now.',
    });
    await screenshot(page, 'grid-07-conflict-kept');
    // Saved now on their value.
    await page.keyboard.press('Enter');
    await page.getByText('2 of 6 rows have problems.').waitFor();
    expect((await review.state()).body.value_fixes).toMatchObject([
      { field: 'age', fix: { kind: 'cell', row: 3, before: 'abc', after: 'abd' } },
      { field: 'age', fix: { kind: 'cell', row: 3, before: 'abd', after: '44' } },
    ]);

    // Row 3 left the list; the keyboard is at the same place, row 5's age. Another reviewer fixes it for good
    // meanwhile: the cell is fine now, so no editor opens again, and the message says what was typed.
    await page.getByText('Page 1 of 1 · matching rows: 2').waitFor();
    await focusIsOn(page, { table: 'problem-rows', row: 1, col: AGE });
    await page.keyboard.press('Enter');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('55');
    expect((await review.fix('age', { kind: 'cell', row: 5, before: 'x1', after: '50' })).status).toBe(200);
    await page.keyboard.press('Enter');
    await page
      .getByText(
        /^Another reviewer changed the values in the meantime\. Your value “\u2068?55\u2069?” for age in row 5 was not saved; the rows now show the values as they are\.$/,
      )
      .waitFor();
    await page.getByText('1 of 6 rows has problems.').waitFor();
    // The rows are asked for once the count is in: their own status says when they are drawn.
    await page.getByText('Page 1 of 1 · matching rows: 1').waitFor();
    await expect(page.locator('#problem-rows tbody th').allInnerTexts()).resolves.toEqual(['2']);
    await expect(page.locator('.cell-edit').count()).resolves.toBe(0);

    // Row 2's e-mail: refused the same way, but the reviewer discards the editor before the rows are drawn again:
    // it does not open again when they are.
    await tabInto(page, 'problem-rows');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'problem-rows', row: 0, col: EMAIL });
    await page.keyboard.press('Enter');
    await page.keyboard.type('bob@x.org');
    expect((await review.fix('email', { kind: 'cell', row: 2, before: '', after: 'not an e-mail' })).status).toBe(200);
    const drawnAgain = page.waitForResponse((r) => r.url().includes('/problem-rows'));
    await page.keyboard.press('Enter');
    await page.getByText(/Your value “\u2068?bob@x\.org\u2069?” for Email in row 2 was not saved/).waitFor();
    await page.keyboard.press('Escape');
    await drawnAgain;
    await page.locator('#problem-rows tbody td').getByText('not an e-mail').waitFor();
    await expect(page.locator('.cell-edit').count()).resolves.toBe(0);
    await page.context().close();
  });

  it('saves with Tab and Shift+Tab in the editor and moves to the next or previous cell; a refused value keeps the editor open', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await page.getByText('3 of 6 rows have problems.').waitFor();

    // In the rows with problems (2, 3, 5): typing opens row 3's age with that character, Tab saves it.
    // Row 3 leaves the list, so the keyboard stays at the same place, the next cell: now row 5's birthday.
    await expect(tabInto(page, 'problem-rows')).resolves.toMatchObject({ table: 'problem-rows', row: 0, col: EMAIL });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect(focusIsOn(page, { table: 'problem-rows', row: 1, col: AGE })).resolves.toMatchObject({
      text: expect.stringContaining('abc'),
    });
    await page.keyboard.type('42');
    await expect(caret(page)).resolves.toEqual({ value: '42', start: 2, end: 2 });
    await page.keyboard.press('Tab');
    await page.getByText('2 of 6 rows have problems.').waitFor();
    // The summary can be drawn before the list is fetched again: wait for the list's own line.
    await page.getByText('Page 1 of 1 · matching rows: 2').waitFor();
    await expect(page.locator('#problem-rows tbody th').allInnerTexts()).resolves.toEqual(['2', '5']);
    await expect(focusIsOn(page, { table: 'problem-rows', row: 1, col: BORN })).resolves.toMatchObject({ text: '1990-01-05' });
    await expect(page.locator('.cell-edit').count()).resolves.toBe(0);

    // In the preview: Enter, a value, Tab: saved, and the keyboard is on the next cell of the row (the table drawn afresh).
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: EMAIL });
    await page.keyboard.press('Enter');
    await editor(page, 'Email', 2).waitFor();
    await page.keyboard.type('bob@x.org');
    await page.keyboard.press('Tab');
    await page.getByText('1 of 6 rows has problems.').waitFor();
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: EMAIL + 1 })).resolves.toMatchObject({ text: 'BOB' });
    await expect(page.locator('#preview tbody tr').nth(1).locator('td').first().innerText()).resolves.toBe('bob@x.org');
    await expect(page.locator('#preview [tabindex="0"]').count()).resolves.toBe(1);
    await screenshot(page, 'grid-05-after-tab-save');
    expect((await reviewApi(run.review_url).state()).body.value_fixes).toMatchObject([
      { field: 'age', fix: { kind: 'cell', row: 3, before: 'abc', after: '42' } },
      { field: 'email', fix: { kind: 'cell', row: 2, before: '', after: 'bob@x.org' } },
    ]);

    // Tab in an editor whose value is unchanged moves on and records nothing.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'preview', row: 4, col: AGE });
    await page.keyboard.press('F2');
    await editor(page, 'age', 5).waitFor();
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 4, col: BORN })).resolves.toMatchObject({ text: '1990-01-05' });
    await expect(page.locator('.cell-edit').count()).resolves.toBe(0);

    // A value longer than a fix may carry (said before it is sent, with the limit): Tab leaves the editor open with the value and says why.
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 4, col: AGE });
    await page.keyboard.press('Enter');
    await editor(page, 'age', 5).fill('9'.repeat(10_001));
    await page.keyboard.press('Tab');
    await page.getByText('The fix was not saved: a value may have at most 10,000 characters; this one has 10,001').waitFor();
    await expect(editor(page, 'age', 5).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(editor(page, 'age', 5).inputValue()).resolves.toHaveLength(10_001);
    await screenshot(page, 'grid-06-tab-save-refused');
    // Escape still discards, back on the cell.
    await page.keyboard.press('Escape');
    await focusIsOn(page, { table: 'preview', row: 4, col: AGE });
    expect((await reviewApi(run.review_url).state()).body.value_fixes).toHaveLength(2);

    // Shift+Tab saves and goes back to the previous cell.
    await page.keyboard.type('5');
    await editor(page, 'age', 5).waitFor();
    await page.keyboard.press('Shift+Tab');
    await page.getByText('No problems found in 6 rows.').waitFor();
    await expect(focusIsOn(page, { table: 'preview', row: 4, col: EMAIL + 1 })).resolves.toMatchObject({ text: 'EVE' });
    expect((await reviewApi(run.review_url).state()).body.value_fixes).toMatchObject([
      {},
      {},
      { field: 'age', fix: { kind: 'cell', row: 5, before: 'x1', after: '5' } },
    ]);
    await page.context().close();
  });

  it('says a refused save at the cell: the text box is invalid, described by why, and keeps the keyboard (360 px, light and dark)', async () => {
    for (const appearance of ['light', 'dark'] as const) {
      const run = await readyRun({ appearance });
      const page = await openPage(run.review_url, 360);
      await page.getByText('3 of 6 rows have problems.').waitFor();
      const live = page.locator('#live');

      // Row 2's e-mail (the grid's first cell to fix): Enter opens it; a value longer than a fix may be is pasted, Enter saves.
      await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: EMAIL });
      await page.keyboard.press('Enter');
      const box = editor(page, 'Email', 2);
      await box.waitFor();
      await expect(announced(page)).resolves.toEqual({
        role: 'textbox',
        name: 'New value of Email in row 2',
        description: '',
        invalid: 'false',
      });
      await page.keyboard.insertText('x'.repeat(10_001));
      await page.keyboard.press('Enter');

      // The cell says why, beside the value, and the text box keeps the keyboard; the page's message names the cell.
      await live.getByText('not saved', { exact: false }).waitFor();
      await page.locator('#preview .cell-edit input[aria-invalid="true"]').waitFor({ timeout: 5000 });
      const refused = {
        role: 'textbox',
        name: 'New value of Email in row 2',
        description: 'The fix was not saved: a value may have at most 10,000 characters; this one has 10,001',
        invalid: 'true',
      };
      await expect(announced(page)).resolves.toEqual(refused);
      await expect(box.inputValue()).resolves.toHaveLength(10_001);
      await expect(live.innerText()).resolves.toBe(
        'The new value of Email in row 2 was not saved: a value may have at most 10,000 characters; this one has 10,001',
      );
      // Next to the value: in its cell, under the text box, and on the screen (the grid scrolled to the cell).
      await expect(box.evaluate(besideInView)).resolves.toEqual({ sameCell: true, below: true, inView: true });
      await expect(axeViolations(page).then((v) => ({ appearance, v }))).resolves.toEqual({ appearance, v: [] });
      await screenshot(page, `grid-07-save-refused-at-cell-${appearance}`);

      // Escape abandons the edit: the cell is back, and an editor opened again starts without the message.
      await page.keyboard.press('Escape');
      await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL });
      await expect(page.locator('.cell-error').count()).resolves.toBe(0);
      await page.keyboard.press('Enter');
      await box.waitFor();
      await expect(announced(page)).resolves.toMatchObject({ name: 'New value of Email in row 2', description: '', invalid: 'false' });

      // A 409 on Tab (too many fixes in force): the same at the cell, and the keyboard stays in the text box, not on the next cell.
      await page.route(
        (url) => url.pathname.endsWith('/fixes'),
        (route) =>
          route.fulfill({
            status: 409,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'too_many_fixes', message: 'A run keeps at most 1000 fixes.', type: 'conflict' } }),
          }),
        { times: 1 },
      );
      await page.keyboard.type('bob@x.org');
      await page.keyboard.press('Tab');
      await page.locator('#preview .cell-error').getByText('too many fixes are in force', { exact: false }).waitFor();
      await expect(announced(page)).resolves.toMatchObject({
        name: 'New value of Email in row 2',
        description: 'The fix was not saved: too many fixes are in force; undo some, or fix many values at once with find and replace',
        invalid: 'true',
      });
      await expect(box.inputValue()).resolves.toBe('bob@x.org');

      // Corrected and saved (Enter): the message goes with the editor, the cell shows the value and has the keyboard.
      await page.keyboard.press('Enter');
      await page.getByText('2 of 6 rows have problems.').waitFor();
      await expect(focusIsOn(page, { table: 'preview', row: 1, col: EMAIL })).resolves.toMatchObject({ text: 'bob@x.org' });
      await expect(page.locator('.cell-error, [aria-invalid="true"]:is(input)').count()).resolves.toBe(0);
      await expect(live.innerText()).resolves.toContain('Fix saved.');
      expect((await reviewApi(run.review_url).state()).body.value_fixes).toMatchObject([
        { field: 'email', fix: { kind: 'cell', row: 2, before: '', after: 'bob@x.org' } },
      ]);
      await page.context().close();
    }
  }, 90_000);

  it('follows the visual direction with the arrow keys and Tab on a right-to-left (Arabic) page', async () => {
    const run = await readyRun({ locale: 'ar' });
    const page = await openPage(run.review_url);
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: EMAIL });
    const x = () => page.evaluate(() => document.activeElement!.getBoundingClientRect().x);
    const before = await x();
    // The fields run from the right: ArrowLeft goes to the next one, which is drawn further left.
    await page.keyboard.press('ArrowLeft');
    await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL + 1 });
    expect(await x()).toBeLessThan(before);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'preview', row: 1, col: 0 });
    expect(await x()).toBeGreaterThan(before);
    // Home is the row's start (its number, on the right), End its last field (on the left).
    await page.keyboard.press('End');
    await focusIsOn(page, { table: 'preview', row: 1, col: BORN });
    await page.keyboard.press('Home');
    await focusIsOn(page, { table: 'preview', row: 1, col: 0 });
    // Tab goes to the adjacent cell the way the arrows go, drawn on the left: row 2's number, its e-mail, its first name…
    await page.keyboard.press('Tab');
    await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL });
    const email = await x();
    await page.keyboard.press('Tab');
    await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL + 1 });
    expect(await x()).toBeLessThan(email);
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL });
    // …and from the row's last cell (on the left) to the next row's number (on the right).
    await page.keyboard.press('End');
    const last = await x();
    await page.keyboard.press('Tab');
    await focusIsOn(page, { table: 'preview', row: 2, col: 0 });
    expect(await x()).toBeGreaterThan(last);
    await page.keyboard.press('Shift+Tab');
    await focusIsOn(page, { table: 'preview', row: 1, col: BORN });
    // In the editor too: Tab saves and takes the next cell, on the left.
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowLeft');
    await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL });
    await page.keyboard.press('Enter');
    await page.locator('#preview .cell-edit input').waitFor();
    await page.keyboard.type('bob@x.org');
    await page.keyboard.press('Tab');
    await expect(focusIsOn(page, { table: 'preview', row: 1, col: EMAIL + 1 })).resolves.toMatchObject({ text: 'BOB' });
    await expect(page.locator('#preview tbody tr').nth(1).locator('td').first().innerText()).resolves.toBe('bob@x.org');
    await page.context().close();
  });

  it('keeps a closed review read-only: the keys still move, no gesture opens an editor', async () => {
    const run = await readyRun();
    expect((await reviewApi(run.review_url).approve(MAPPING)).status).toBe(200);
    const page = await openPage(run.review_url);
    await page.getByRole('heading', { name: 'Approved' }).waitFor();
    const preview = page.getByRole('grid', { name: 'First 6 rows as they will be delivered' });
    await expect(preview.getAttribute('aria-readonly')).resolves.toBe('true');
    await expect(page.locator('#preview .fix-cell').count()).resolves.toBe(0);
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 0, col: EMAIL });
    await page.keyboard.press('ArrowDown');
    await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL });
    await page.keyboard.press('Enter');
    await page.keyboard.press('F2');
    await page.keyboard.type('x');
    await preview
      .locator('tbody tr')
      .nth(2)
      .locator('td')
      .nth(AGE - 1)
      .dblclick();
    await expect(page.locator('.cell-edit').count()).resolves.toBe(0);
    // Nothing to fix: Tab holds no stop inside the grid and leaves it at once (from the cell the double click focused).
    await focusIsOn(page, { table: 'preview', row: 2, col: AGE });
    await page.keyboard.press('Tab');
    await expect(focusOf(page).then((f) => f.table)).resolves.toBeUndefined();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.context().close();
  });

  it('shows a bad value longer than the page is sent as its start, says so in words, and opens no editor on it: light, dark, 360 px', async () => {
    // Row 1's e-mail: 5,000 characters and no @ (not an e-mail), sent to the page cut to 2,000 (REVIEW_VALUE_CHARS); row 2's age is bad and short.
    const csv = ['E-mail,First,Years,Birthday', `ann.${'x'.repeat(4996)},Ann,30,01/01/1990`, 'cy@x.org,Cy,abc,03/01/1990'].join('\n');
    const shortened = 'Shortened here; the output keeps the whole value';
    const run = await readyRun({}, csv);
    const page = await suite.openPage(run.review_url, { ready: '#problem-rows tbody tr >> nth=1' });
    await page.getByText('2 of 2 rows have problems.').waitFor();
    for (const grid of [
      page.getByRole('grid', { name: 'The first 2 rows as they will be delivered' }),
      page.getByRole('grid', { name: 'Rows with problems' }),
    ]) {
      // Read with its value and its problem: the value's first 2,000 characters, then the words (the ellipsis is shown, not read).
      const cut = grid.getByRole('gridcell', { name: new RegExp(`ann\\.x{1996} ${shortened} Not a valid value for Email$`) });
      await expect(cut.count()).resolves.toBe(1);
      await expect(cut.innerText()).resolves.toContain(`… ${shortened}`);
      await expect(cut.getAttribute('aria-invalid')).resolves.toBe('true');
      // No Fix button on it; the short bad age has one.
      await expect(cut.getByRole('button').count()).resolves.toBe(0);
      await expect(grid.getByRole('button', { name: 'Fix the value of age in row 2' }).count()).resolves.toBe(1);
    }

    // The grid's tab stop is the first cell that may be fixed: row 2's age, not the shortened e-mail above it.
    await expect(tabInto(page, 'preview')).resolves.toMatchObject({ table: 'preview', row: 1, col: AGE });
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await expect(focusIsOn(page, { table: 'preview', row: 0, col: EMAIL })).resolves.toMatchObject({
      text: expect.stringContaining(shortened),
    });
    // Enter, F2, typing and a double click open nothing on it, and the keyboard stays on it.
    await page.keyboard.press('Enter');
    await page.keyboard.press('F2');
    await page.keyboard.type('a');
    await page
      .locator('#preview tbody tr')
      .first()
      .locator('td')
      .nth(EMAIL - 1)
      .dblclick();
    await expect(page.locator('.cell-edit').count()).resolves.toBe(0);
    await focusIsOn(page, { table: 'preview', row: 0, col: EMAIL });
    // The short bad cell of the same grid opens on Enter.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await focusIsOn(page, { table: 'preview', row: 1, col: AGE });
    await page.keyboard.press('Enter');
    await expect(editor(page, 'age', 2).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await focusIsOn(page, { table: 'preview', row: 1, col: AGE });
    expect((await reviewApi(run.review_url).state()).body.value_fixes).toEqual([]);

    // Light, dark, a phone; and German, whose words are wider than a cell's 20rem on one line.
    const german = await readyRun({ locale: 'de' }, csv);
    const dePage = await suite.openPage(german.review_url, { width: 360, colorScheme: 'dark', ready: '#problem-rows tbody tr >> nth=1' });
    await dePage
      .getByRole('gridcell', { name: /Hier gekürzt; die Ausgabe enthält den ganzen Wert/ })
      .first()
      .waitFor();
    for (const [name, at, width, colorScheme] of [
      ['light', page, 1100, 'light'],
      ['dark', page, 1100, 'dark'],
      ['narrow', page, 360, 'light'],
      ['narrow-de', dePage, 360, 'dark'],
    ] as const) {
      await at.setViewportSize({ width, height: 900 });
      await at.emulateMedia({ colorScheme });
      // The long value does not widen the page (the grids' own boxes scroll), and the words under it are not cut off.
      const fits = await at.evaluate(() => ({
        page: document.documentElement.scrollWidth <= window.innerWidth,
        words: Array.from(document.querySelectorAll('td .shortened')).map((el) => el.scrollWidth <= el.clientWidth),
      }));
      expect({ name, fits }).toEqual({ name, fits: { page: true, words: [true, true] } });
      await expect(axeViolations(at).then((v) => ({ name, v }))).resolves.toEqual({ name, v: [] });
      await screenshot(at, `grid-04-value-shortened-${name}`);
    }
    await page.context().close();
    await dePage.context().close();
  }, 60_000);

  it('stays axe-clean with the grid and its keyboard-opened editor: light, dark, Arabic and 360 px wide', async () => {
    for (const [name, body, width] of [
      ['light', { appearance: 'light' }, 1100],
      ['dark', { appearance: 'dark' }, 1100],
      ['arabic', { locale: 'ar' }, 1100],
      ['narrow', {}, 360],
    ] as const) {
      const run = await readyRun(body);
      const page = await openPage(run.review_url, width);
      await tabInto(page, 'preview');
      await focusIsOn(page, { table: 'preview', row: 1, col: EMAIL });
      await expect(axeViolations(page).then((v) => ({ name, v }))).resolves.toEqual({ name, v: [] });
      // The focus ring of the cell is visible: drawn inside it, in the theme's focus colour.
      const ring = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      expect({ name, ring }).toEqual({ name, ring: 'solid' });
      await screenshot(page, `grid-02-cell-focused-${name}`);
      await page.keyboard.press('Enter');
      await page.locator('#preview .cell-edit input').waitFor();
      await expect(axeViolations(page).then((v) => ({ name, v }))).resolves.toEqual({ name, v: [] });
      if (width === 360) {
        // Nothing wider than the screen except inside the tables' own scroll boxes.
        await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      }
      await screenshot(page, `grid-03-editor-open-${name}`);
      await page.context().close();
    }
  }, 90_000);
});
