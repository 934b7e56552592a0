/// <reference lib="dom" />
import ExcelJS from 'exceljs';
import { axeViolations, screenshot } from '../support/browser';
import { focusedId, reviewBrowserSuite } from '../support/review-browser';

/**
 * The review page tells the reviewer of rows that do not line up with the file's first row (a row broken
 * by an unquoted comma, a row that lost its last cells), as a note above the mapping: read by its text,
 * in the run's language, at 360 px, light and dark, axe-clean; and says nothing of a file whose rows line up.
 */

// Data row 2 has an unquoted comma in its name; data rows 4 and 5 lost their last cell.
const BROKEN = 'E-mail,Name,Age\nada@x.org,Ada,36\nalan@x.org,Turing, Alan,41\ngrace@x.org,Grace,45\nlinus@x.org,Linus\nken@x.org,Ken\n';
const MAPPING = { email: 'E-mail', first_name: 'Name', age: 'Age' };

describe('hosted review page: rows that do not line up with the first row', () => {
  const suite = reviewBrowserSuite();

  // By its id: the preview's heading is in the run's language.
  const openPage = (url: string, options: { width?: number; colorScheme?: 'light' | 'dark' } = {}) =>
    suite.openPage(url, { ...options, ready: '#preview' });

  it('says how many rows are longer and shorter, the first of each, and the unnamed column the extra values are in', async () => {
    const run = await suite.readyRun({ content: BROKEN, mapping: MAPPING });
    for (const [width, colorScheme] of [
      [1100, 'light'],
      [360, 'dark'],
    ] as const) {
      const page = await openPage(run.review_url, { width, colorScheme });
      const notes = page.getByRole('note');
      await notes
        // The column's name is the file's text, isolated from the sentence around it (FSI…PDI).
        .filter({
          hasText:
            /^1 row has more cells than the file's first row \(row 2\)\. Its extra values are in \u2068column_4\u2069, which the first row does not name/,
        })
        .waitFor();
      await notes.filter({ hasText: "2 rows have fewer cells than the file's first row (the first is row 4)" }).waitFor();
      // Above the mapping, where the reviewer starts reading; and the page does not scroll sideways at 360 px.
      const noteTop = await notes.first().evaluate((n) => n.getBoundingClientRect().top);
      const mappingTop = await page.locator('#mapping-title').evaluate((n) => n.getBoundingClientRect().top);
      expect(noteTop).toBeLessThan(mappingTop);
      await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
      await expect(axeViolations(page)).resolves.toEqual([]);
      await screenshot(page, `rows-out-of-line-${width}-${colorScheme}`);
      await page.context().close();
    }
  }, 60_000);

  it("says it in the run's language, and nothing of a file whose rows line up", async () => {
    const german = await suite.readyRun({ content: BROKEN, mapping: MAPPING, body: { locale: 'de' } });
    const page = await openPage(german.review_url);
    await page
      .getByRole('note')
      .filter({ hasText: '2 Zeilen haben weniger Zellen als die erste Zeile der Datei (die erste ist Zeile 4)' })
      .waitFor();
    await page.context().close();

    // Right to left, with the plural Arabic has for two; the column's name keeps its own direction.
    // Two extra cells in data row 2: the columns' names are listed with Arabic's own comma.
    const twoExtra = BROKEN.replace('Turing, Alan,41', 'Turing, Alan,41,x');
    const arabic = await suite.readyRun({ content: twoExtra, mapping: MAPPING, body: { locale: 'ar' } });
    const arPage = await openPage(arabic.review_url, { width: 360 });
    await arPage
      .getByRole('note')
      .filter({ hasText: /صفان فيهما خلايا أقل من الصف الأول للملف \(أولهما الصف (4|٤)\)/ })
      .waitFor();
    await arPage.getByRole('note').filter({ hasText: '\u2068column_4\u2069، \u2068column_5\u2069' }).waitFor();
    await expect(arPage.evaluate(() => document.documentElement.dir)).resolves.toBe('rtl');
    await expect(axeViolations(arPage)).resolves.toEqual([]);
    await screenshot(arPage, 'rows-out-of-line-360-ar');
    await arPage.context().close();

    const even = await suite.readyRun({ content: 'E-mail,Name,Age\nada@x.org,Ada,36\ngrace@x.org,Grace,45\n', mapping: MAPPING });
    const evenPage = await openPage(even.review_url);
    await evenPage.locator('#preview').getByText('ADA', { exact: true }).waitFor();
    await expect(evenPage.locator('[data-notice^="rows_"]').count()).resolves.toBe(0);
    await evenPage.context().close();
  }, 60_000);

  it('says it in the live region when a sheet chosen by keyboard reads rows out of line, and the note goes with another sheet', async () => {
    const wb = new ExcelJS.Workbook();
    const even = wb.addWorksheet('Even');
    even.addRow(['E-mail', 'Name', 'Age']);
    even.addRow(['ada@x.org', 'Ada', 36]);
    const ragged = wb.addWorksheet('Ragged');
    ragged.addRow(['E-mail', 'Name', 'Age']);
    ragged.addRow(['ada@x.org', 'Ada', 36]);
    ragged.addRow(['alan@x.org', 'Turing', 'Alan', 41]);
    const run = await suite.readyRun({ content: Buffer.from(await wb.xlsx.writeBuffer()), filename: 'people.xlsx' });
    const page = await openPage(run.review_url, { width: 360 });
    const sheet = page.getByRole('combobox', { name: 'Sheet of the workbook' });
    await sheet.waitFor();
    await expect(page.locator('[data-notice^="rows_"]').count()).resolves.toBe(0);
    for (let i = 0; i < 15 && (await focusedId(page)) !== 'sheet-choice'; i++) await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('sheet-choice');
    await page.keyboard.press('ArrowDown');
    // Said once the sheet is read, after which sheet it is: the note itself is not a live region, so the status points to it.
    await page
      .getByRole('status')
      .filter({
        hasText: /now those of the sheet .+Ragged.+\. Some rows do not line up with the file's first row: see the note at the top\.$/,
      })
      .waitFor({ timeout: 10000 });
    await page.getByRole('note').filter({ hasText: '1 row has more cells' }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'rows-out-of-line-sheet-chosen-360');
    await page.waitForFunction(() => document.activeElement?.id === 'sheet-choice');
    await page.keyboard.press('ArrowUp');
    await page
      .getByRole('status')
      .filter({ hasText: /now those of the sheet .+Even.+\.$/ })
      .waitFor({ timeout: 10000 });
    await expect(page.locator('[data-notice^="rows_"]').count()).resolves.toBe(0);
    await page.context().close();
  }, 60_000);
});
