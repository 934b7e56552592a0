/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, screenshot } from '../support/browser';
import { listenOnLoopback } from '../support/suite-resources';
import {
  ADMIN_TOKEN,
  call,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

/**
 * The customer's validation hook on the review page, in Chromium: the page says the checks ran
 * (or why they could not, approval staying possible), a cell the hook named shows its message
 * and suggested value, and the reviewer accepts the suggestion with the keyboard alone.
 */

const FIELDS = {
  email: { description: 'E-mail', data_type: 'email', is_required: true, label: 'Email' },
  age: { description: 'Age', data_type: 'integer', is_required: false, label: 'Age' },
};
// Row 2: a blocked domain (the hook suggests another); row 3: no e-mail (our own problem).
const CSV = ['E-mail,Age', 'a@x.org,30', 'b@blocked.example,31', ',32', 'e@x.org,40'].join('\n');
const MAPPING = { email: 'E-mail', age: 'Age' };

describe("the customer's validation hook on the review page", () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let browser: Browser;
  let hook: Server;
  let hookUrl = '';
  let closeHook: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    // /answer finds the blocked domain; /garbage answers something that is not an answer.
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('[1, 2, 3]');
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { rows: { row: number; values: Record<string, unknown> }[] };
        const results = body.rows
          .filter((r) => typeof r.values.email === 'string' && r.values.email.endsWith('@blocked.example'))
          .map((r) => ({ row: r.row, field: 'email', message: 'This domain is blocked', corrected_value: 'b@ok.example' }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      });
    });
    const listening = await listenOnLoopback(hook, 'validation hook');
    hookUrl = listening.baseUrl;
    closeHook = listening.close;
    svc = await startService();
    org = await setupOrganization(svc, FIELDS);
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    hook.closeAllConnections();
    await closeHook();
  });

  async function readyRun(path: '/answer' | '/garbage', body: Record<string, unknown> = {}) {
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Checked people', fields: FIELDS, validation_url: `${hookUrl}${path}` },
    });
    expect(schema.status).toBe(201);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schema.body.data.id, filename: 'people.csv', ...body },
    });
    expect(created.status).toBe(201);
    expect((await upload(created.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect((await reviewApi(created.body.review_url).edit(MAPPING)).status).toBe(200);
    return created.body as { id: string; review_url: string };
  }

  async function openPage(url: string, width = 1100): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(url);
    return page;
  }

  it('says the checks ran, shows the message and suggestion in the cell, and the keyboard accepts it as a fix', async () => {
    const run = await readyRun('/answer');
    const page = await openPage(run.review_url);
    await page.getByText('Your checks ran on 4 of 4 rows.').waitFor();
    await page.getByText('2 of 4 rows have problems.').waitFor();
    const preview = page.getByRole('grid', { name: 'First 4 rows as they will be delivered' });
    const named = preview.getByRole('gridcell', { name: /This domain is blocked/ });
    await named.waitFor();
    await expect(named.innerText()).resolves.toContain('Suggested: b@ok.example');
    await expect(named.getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshot(page, 'hook-01-finding-in-cell');

    // The grid's tab stop is its first bad cell when first drawn, before the hook answered: row 3's missing e-mail.
    // Up to row 2's; Enter opens its editor, where the Down arrow puts the suggestion in and Enter saves it (Accept's fix).
    await page.locator('.table-wrap:has(#preview)').focus();
    await page.keyboard.press('Tab');
    const missing = preview.getByRole('gridcell', { name: /Required value missing/ });
    await expect(missing.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('ArrowUp');
    await expect(named.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    const box = page.getByRole('textbox', { name: 'New value of Email in row 2' });
    await box.waitFor();
    await expect(box.getAttribute('aria-describedby').then((id) => page.locator(`#${id}`).innerText())).resolves.toBe(
      'Suggested: b@ok.example (the Down arrow puts it in the box)',
    );
    await page.keyboard.press('ArrowDown');
    await expect(box.inputValue()).resolves.toBe('b@ok.example');
    await page.keyboard.press('Enter');

    await page.getByText('1 of 4 rows has problems.').waitFor();
    // Said once the hook has checked the rows again too: its finding was one of the two before.
    await page.getByText('Fix saved. The rows were checked again. Rows with problems: 2 before, 1 now.').waitFor();
    await expect(preview.getByRole('gridcell', { name: /This domain is blocked/ }).count()).resolves.toBe(0);
    await expect(preview.getByRole('gridcell', { name: 'b@ok.example' }).count()).resolves.toBe(1);
    const fixes = (await reviewApi(run.review_url).state()).body.value_fixes;
    expect(fixes).toMatchObject([{ field: 'email', fix: { kind: 'cell', row: 2, before: 'b@blocked.example', after: 'b@ok.example' } }]);
    await page.context().close();
  });

  it('a hook answering garbage: the page says the checks could not run, and approval goes through', async () => {
    const run = await readyRun('/garbage');
    const page = await openPage(run.review_url);
    await page.getByText('Your checks could not run (the answer could not be read). You can still approve.').waitFor();
    await page.getByText('1 of 4 rows has problems.').waitFor();
    await screenshot(page, 'hook-02-could-not-run');
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Yes, approve' }).click();
    await waitForRun(svc, org.apiKey, run.id, (r) => r.review_state === 'approved');
    await page.context().close();
  });

  it('rows past those checked up front: their page of rows with problems asks the hook, and shows its finding once answered', async () => {
    // One row up front, so rows 2 to 4 are "later" rows; the hook takes 2.5 s over them, longer than a page waits.
    const slowHook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { rows: { row: number; values: Record<string, unknown> }[] };
        const results = body.rows
          .filter((r) => typeof r.values.email === 'string' && r.values.email.endsWith('@blocked.example'))
          .map((r) => ({ row: r.row, field: 'email', message: 'This domain is blocked', corrected_value: 'b@ok.example' }));
        const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
        if (body.rows.some((r) => r.row > 1)) setTimeout(answer, 2500);
        else answer();
      });
    });
    const listening = await listenOnLoopback(slowHook, 'slow validation hook');
    const small = await startService({ VALIDATION_HOOK_MAX_ROWS: '1', VALIDATION_HOOK_BATCH_ROWS: '4' });
    try {
      const smallOrg = await setupOrganization(small, FIELDS);
      const schema = await call(`${small.baseUrl}/admin/v1/organizations/${smallOrg.orgId}/schemas`, {
        token: ADMIN_TOKEN,
        body: { name: 'Checked people', fields: FIELDS, validation_url: `${listening.baseUrl}/answer` },
      });
      const created = await call(`${small.baseUrl}/v1/transformations/file`, {
        token: smallOrg.apiKey,
        body: { schema_id: schema.body.data.id, filename: 'people.csv' },
      });
      // Row 2: a blocked domain (the hook's) and an age that is not a number (ours): the rows with problems list it.
      expect((await upload(created.body, ['E-mail,Age', 'a@x.org,30', 'b@blocked.example,old', ',32'].join('\n'))).status).toBe(200);
      await waitForRun(small, smallOrg.apiKey, created.body.id, (r) => r.review_state === 'active');
      expect((await reviewApi(created.body.review_url).edit(MAPPING)).status).toBe(200);
      const page = await openPage(created.body.review_url);
      await page.getByText('Your checks ran on 1 of 3 rows.').waitFor();
      const rows = page.getByRole('grid', { name: 'Rows with problems' });
      await rows
        .getByRole('gridcell', { name: /Not a valid value/ })
        .first()
        .waitFor();
      const named = rows.getByRole('gridcell', { name: /This domain is blocked/ });
      await named.waitFor({ timeout: 10_000 });
      await expect(named.innerText()).resolves.toContain('Suggested: b@ok.example');
      await page.context().close();
    } finally {
      await small.stop();
      slowHook.closeAllConnections();
      await listening.close();
    }
  }, 60_000);

  it('stays axe-clean with the hook’s findings shown: light, dark, Arabic and 360 px wide', async () => {
    for (const [name, body, width] of [
      ['light', { appearance: 'light' }, 1100],
      ['dark', { appearance: 'dark' }, 1100],
      ['arabic', { locale: 'ar' }, 1100],
      ['narrow', {}, 360],
    ] as const) {
      const run = await readyRun('/answer', body);
      const page = await openPage(run.review_url, width);
      await page.locator('#customer-checks[data-status="ran"]').waitFor();
      await page.locator('#preview .customer-reason').first().waitFor();
      await expect(axeViolations(page).then((v) => ({ name, v }))).resolves.toEqual({ name, v: [] });
      if (width === 360) await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      await screenshot(page, `hook-03-${name}`);
      // The cell's editor with the suggestion and its key beside the text box.
      await page.locator('#preview td:has(.customer-reason)').first().dblclick();
      await page.locator('#preview .cell-edit .suggestion').waitFor();
      await expect(axeViolations(page).then((v) => ({ name, v }))).resolves.toEqual({ name, v: [] });
      if (width === 360) await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
      await screenshot(page, `hook-04-editor-${name}`);
      await page.context().close();
    }
  }, 90_000);
});
