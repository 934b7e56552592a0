/// <reference lib="dom" />
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, colorsOf, contrastRatio, launchBrowser, screenshot } from '../support/browser';
import {
  ADMIN_TOKEN,
  PEOPLE_FIELDS,
  call,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

/**
 * The review page's sheet chooser on a workbook with several sheets, in Chromium: chosen by
 * keyboard alone, the columns, preview and mapping follow; light, dark, Arabic, 360 px.
 */

/** A hidden cover sheet, people on the second sheet, staff with other columns on the third. */
async function threeSheets(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Cover', { state: 'hidden' }).addRow(['Read me first']);
  const people = wb.addWorksheet('People');
  people.addRow(['E-mail', 'First', 'Years']);
  for (let i = 1; i <= 4; i++) people.addRow([`person${i}@example.com`, `Name${i}`, 30 + i]);
  const staff = wb.addWorksheet('Staff');
  staff.addRow(['E-mail', 'Years', 'Dept']);
  staff.addRow(['linus@example.com', 28, 'Kernel']);
  staff.addRow(['', 'old', 'Docs']);
  wb.addWorksheet('Empty');
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('hosted review page: the sheets of a workbook', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc);
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  /** A schema of its own per run: an approved mapping is remembered by organization, schema and headers. */
  async function workbookRun(body: Record<string, unknown> = {}, bytes?: Buffer) {
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'People', fields: PEOPLE_FIELDS },
    });
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schema.body.data.id, filename: 'people.xlsx', ...body },
    });
    expect((await upload(run.body, bytes ?? (await threeSheets()))).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    return run.body as { id: string; review_url: string };
  }

  async function openPage(url: string, width = 1100): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(url);
    return page;
  }

  /** Option texts without the isolation marks around the file's own names (FSI…PDI). */
  const optionTexts = async (select: ReturnType<Page['locator']>) =>
    (await select.locator('option').allInnerTexts()).map((text) => text.replace(/[\u2068\u2069]/g, ''));
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

  it('chooses another sheet by keyboard: the columns, preview and mapping follow, and the choice is kept', async () => {
    const run = await workbookRun();
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years', born: null });
    const page = await openPage(run.review_url, 360);
    const sheet = page.getByRole('combobox', { name: 'Sheet of the workbook' });
    await sheet.waitFor();
    // The sheets with data, hidden ones said so; the empty sheet is not offered.
    await expect(optionTexts(sheet)).resolves.toEqual(['Cover (hidden)', 'People', 'Staff']);
    await expect(sheet.inputValue()).resolves.toBe('People');
    await expect(page.locator('#preview tbody tr').first().innerText()).resolves.toContain('person1@example.com');
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
    await expect(axeViolations(page)).resolves.toEqual([]);

    // Tab reaches the chooser (it comes before the fields' selects), and ArrowDown picks the next sheet.
    for (let i = 0; i < 15 && (await focusedId(page)) !== 'sheet-choice'; i++) await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('sheet-choice');
    await page.keyboard.press('ArrowDown');
    await page.getByText('The columns and rows are now those of the sheet “\u2068Staff\u2069”.').waitFor({ timeout: 10000 });
    // Focus stays on the chooser, which now shows the sheet read.
    await page.waitForFunction(() => document.activeElement?.id === 'sheet-choice');
    await expect(page.getByRole('combobox', { name: 'Sheet of the workbook' }).inputValue()).resolves.toBe('Staff');

    // Columns of the new sheet; the mapping kept where they match, "First" dropped.
    const email = page.getByRole('combobox', { name: 'Email' });
    await expect(email.inputValue()).resolves.toBe('E-mail');
    await expect(page.getByRole('combobox', { name: 'age' }).inputValue()).resolves.toBe('Years');
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('');
    await expect(optionTexts(email)).resolves.toEqual(['Not mapped', 'E-mail', 'Years · used by age', 'Dept']);
    await page.locator('#preview tbody tr', { hasText: 'linus@example.com' }).waitFor({ timeout: 10000 });
    await expect(page.locator('#preview tbody tr').count()).resolves.toBe(2);
    await page.getByText('1 of 2 rows has problems.').waitFor({ timeout: 10000 });
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
    await screenshot(page, '30-sheet-chosen-narrow');
    await expect(axeViolations(page)).resolves.toEqual([]);

    // The service recorded it: a reload opens on the chosen sheet.
    expect((await reviewApi(run.review_url).state()).body).toMatchObject({ sheet: 'Staff', source_headers: ['E-mail', 'Years', 'Dept'] });
    await page.reload();
    await expect(page.getByRole('combobox', { name: 'Sheet of the workbook' }).inputValue()).resolves.toBe('Staff');
    await page.context().close();
  }, 60_000);

  it('refuses a title sheet of one row where the reviewer chose it, and gives a sheet its mapping back on return', async () => {
    const run = await workbookRun();
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years', born: null });
    const page = await openPage(run.review_url);
    const sheet = page.getByRole('combobox', { name: 'Sheet of the workbook' });
    await sheet.waitFor();
    // The cover's one row would be read as the column names of nothing: refused, the chooser back on People, with the keyboard.
    await sheet.selectOption('Cover');
    await page
      .getByText(
        'The sheet “\u2068Cover\u2069” cannot be used: that sheet has no rows under its first row, so there is nothing to import from it. ' +
          'The review stays on the sheet it was on.',
      )
      .waitFor({ timeout: 10000 });
    await page.waitForFunction(() => document.activeElement?.id === 'sheet-choice');
    await expect(sheet.inputValue()).resolves.toBe('People');
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('First');
    await screenshot(page, '32-sheet-refused');
    await expect(axeViolations(page)).resolves.toEqual([]);

    // To Staff, which has no "First", and back: first_name has its column again.
    await sheet.selectOption('Staff');
    await page.getByText('The columns and rows are now those of the sheet “\u2068Staff\u2069”.').waitFor({ timeout: 10000 });
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('');
    await page.getByRole('combobox', { name: 'Sheet of the workbook' }).selectOption('People');
    await page.getByText('The columns and rows are now those of the sheet “\u2068People\u2069”.').waitFor({ timeout: 10000 });
    await expect(page.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('First');
    await expect(page.getByRole('combobox', { name: 'Email' }).inputValue()).resolves.toBe('E-mail');
    await page.context().close();
  }, 60_000);

  it('reads well in the dark and light themes and in Arabic', async () => {
    for (const [appearance, locale] of [
      ['dark', 'en'],
      ['light', 'en'],
      ['light', 'ar'],
    ] as const) {
      const run = await workbookRun({ appearance, locale });
      const page = await openPage(run.review_url);
      const sheet = page.locator('#sheet-choice');
      await sheet.waitFor();
      if (locale === 'ar') {
        // Named in Arabic; the hidden sheet said so in Arabic; the file's names as written.
        await page.getByRole('combobox', { name: 'ورقة المصنف' }).waitFor();
        await expect(sheet.locator('option').first().innerText()).resolves.toBe('\u2068Cover\u2069 (مخفية)');
        await expect(page.locator('.sheet-choice').innerText()).resolves.not.toMatch(/Sheet|hidden|columns/);
      }
      const samples = await colorsOf(page, '.sheet-choice label, .sheet-choice p, .sheet-choice select');
      expect(samples.length).toBe(3);
      for (const s of samples)
        expect({ text: s.text, ratio: contrastRatio(s.color, s.background) >= 4.5 }).toEqual({ text: s.text, ratio: true });
      await screenshot(page, `31-sheet-choice-${appearance}-${locale}`);
      await expect(axeViolations(page)).resolves.toEqual([]);
      await page.context().close();
    }
  }, 60_000);

  it('shows no chooser for a workbook with one sheet with data', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Blank');
    wb.addWorksheet('People').addRow(['E-mail']);
    wb.getWorksheet('People')!.addRow(['a@x.org']);
    const run = await workbookRun({}, Buffer.from(await wb.xlsx.writeBuffer()));
    const page = await openPage(run.review_url);
    await page.locator('#preview tbody tr').first().waitFor();
    await expect(page.locator('#sheet-choice').count()).resolves.toBe(0);
    expect((await reviewApi(run.review_url).state()).body.sheet).toBe('People');
    await page.context().close();
  });
});
