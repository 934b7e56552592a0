/// <reference lib="dom" />
import iconv from 'iconv-lite';
import { axeViolations, screenshot } from '../support/browser';
import { focusedId, reviewBrowserSuite } from '../support/review-browser';
import { reviewApi, waitForRun } from '../support/service-harness';

/**
 * The review page's encoding chooser for a text file, in Chromium: chosen by keyboard alone, the columns,
 * preview and mapping follow, a refusal puts the select back; light, dark, Arabic, 360 px.
 */

/** Italian, in windows-1252: "Città" and "Forlì" read "Cittŕ" and "Forlě" in windows-1250. */
const ITALIAN = 'E-mail,Nome,Anni,Città\nnic@x.org,Niccolò,30,Forlì\nada@x.org,Ada,36,Cantù\n';

describe('hosted review page: the encoding of a text file', () => {
  const suite = reviewBrowserSuite();
  const textRun = (body: Record<string, unknown> = {}) =>
    suite.readyRun({
      content: iconv.encode(ITALIAN, 'windows-1252'),
      filename: 'persone.csv',
      body,
      mapping: { email: 'E-mail', first_name: 'Città', age: 'Anni' },
    });

  // By its id: its name is in the run's language.
  const openPage = (url: string, options: { width?: number; colorScheme?: 'light' | 'dark' } = {}) =>
    suite.openPage(url, { ...options, ready: '#encoding-choice' });

  it('reads the file in another encoding chosen by keyboard: the columns, preview and mapping follow', async () => {
    const run = await textRun();
    const page = await openPage(run.review_url);
    const encoding = page.getByRole('combobox', { name: 'Text encoding' });
    await expect(encoding.inputValue()).resolves.toBe('windows-1252');
    await expect(encoding.locator('option:checked').innerText()).resolves.toBe('Western European (windows-1252)');
    await expect(axeViolations(page)).resolves.toEqual([]);

    // Three options down (ISO-8859-15, Mac, then Central European): read once, when the reviewer stops.
    const reads: string[] = [];
    page.on('request', (r) => r.url().includes('/encoding?') && reads.push(r.postData() ?? ''));
    await encoding.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    await page.getByText('The file is now read as Central European (windows-1250).').waitFor();
    expect(reads).toEqual([JSON.stringify({ encoding: 'windows-1250' })]);
    await expect(focusedId(page)).resolves.toBe('encoding-choice');
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('Cittŕ');
    await page.locator('#preview').getByText('FORLĚ').waitFor();
    await screenshot(page, 'encoding-01-read-as-1250');

    // Back to Western European: "Città" and "FORLÌ" again.
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
    await page.getByText('The file is now read as Western European (windows-1252).').waitFor();
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('Città');
    await page.locator('#preview').getByText('FORLÌ').waitFor();
  });

  it('says why an encoding cannot be read, and the select shows the one still read', async () => {
    const run = await textRun();
    const page = await openPage(run.review_url);
    const encoding = page.getByRole('combobox', { name: 'Text encoding' });
    await encoding.focus();
    // Up one: UTF-8, which the file's à (E0) is not.
    await page.keyboard.press('ArrowUp');
    await page
      .getByText(
        'The file cannot be read as Unicode (utf-8): it has characters that encoding does not have, so it was not saved in it. Choose another one.',
      )
      .waitFor();
    await expect(encoding.inputValue()).resolves.toBe('windows-1252');
    // The select was disabled while the file was read: the keyboard is back on it.
    await expect(focusedId(page)).resolves.toBe('encoding-choice');
    expect((await reviewApi(run.review_url).state()).body.encoding).toBe('windows-1252');
  });

  it("names another reason an encoding cannot be read in the reviewer's language, not the service's English", async () => {
    const run = await textRun({ locale: 'de' });
    const page = await openPage(run.review_url);
    // No code page the review offers reads a quote apart from windows-1252, so the answer is the service's, stubbed.
    await page.route(
      (url) => url.pathname.endsWith('/encoding'),
      (route) =>
        route.fulfill({
          status: 422,
          contentType: 'application/json',
          body: JSON.stringify({
            error: {
              code: 'source_file_unterminated_quote',
              type: 'validation',
              message: 'The file cannot be read as windows-1250: line 3',
            },
          }),
        }),
      { times: 1 },
    );
    const encoding = page.locator('#encoding-choice');
    await encoding.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    await page
      .getByText(
        'Die Datei kann nicht als Mitteleuropäisch (windows-1250) gelesen werden: ein Wert in Anführungszeichen wird nie geschlossen. ' +
          'Sie wird weiter wie bisher gelesen.',
      )
      .waitFor();
    await expect(encoding.inputValue()).resolves.toBe('windows-1252');
    await expect(focusedId(page)).resolves.toBe('encoding-choice');
    await expect(page.getByText('line 3', { exact: false }).count()).resolves.toBe(0);
  });

  it('approving while an encoding chosen is still settling reads it first, and approves what it shows', async () => {
    const run = await textRun();
    const page = await openPage(run.review_url);
    await page.getByRole('combobox', { name: 'Text encoding' }).focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    // At once, within the choice's settling time.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('The file is now read as Central European (windows-1250).').waitFor();
    await page.getByRole('dialog', { name: 'Approve this mapping?' }).getByRole('button', { name: 'Yes, approve' }).click();
    const done = await waitForRun(suite.svc, suite.org.apiKey, run.id, (r) => r.status === 'completed' && r.stage === 'final');
    const records = (await (await fetch(done.download_url)).json()) as { first_name: string }[];
    expect(records.map((r) => r.first_name)).toEqual(['FORLĚ', 'CANTŮ']);
  });

  it.each([
    ['light', 'en', 1100],
    ['dark', 'en', 360],
    ['dark', 'ar', 360],
  ] as const)('is axe-clean and fits the screen (%s, %s, %i px)', async (scheme, locale, width) => {
    const run = await textRun({ locale });
    const page = await openPage(run.review_url, { width, colorScheme: scheme });
    await expect(axeViolations(page)).resolves.toEqual([]);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
    await screenshot(page, `encoding-02-${locale}-${scheme}-${width}`);
  });
});
