/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { listenOnLoopback } from '../support/suite-resources';
import { axeViolations, contrastRatio, colorsOf, holdRequests, launchBrowser, screenshot } from '../support/browser';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
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
 * The hosted review page in a real browser (Debian's Chromium through playwright-core):
 * what a reviewer sees and does, in every state, language and theme.
 */

/** 30 rows: rows 3 and 27 lack the required email; rows 5 and 25 have an age that is not an integer. */
const ROWS = 30;
const MISSING_EMAIL = new Set([3, 27]);
const BAD_AGE = new Set([5, 25]);
const csv = (): string =>
  [
    'E-mail,First,Years,Birthday',
    ...Array.from({ length: ROWS }, (_, k) => {
      const i = k + 1;
      return [
        MISSING_EMAIL.has(i) ? '' : `User${i}@Example.com`,
        `name${i}`,
        BAD_AGE.has(i) ? 'abc' : String(20 + i),
        `0${(i % 9) + 1}/01/1990`,
      ].join(',');
    }),
  ].join('\n');

describe('hosted review page in Chromium', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let browser: Browser;
  let callbacks: Server;
  let callbackBase: string;
  const callbackHits: string[] = [];

  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc);
    browser = await launchBrowser();
    callbacks = createServer((req, res) => {
      callbackHits.push(req.url ?? '');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<!doctype html><title>Back at the customer</title><h1>Back at the customer</h1>');
    });
    callbackBase = (await listenOnLoopback(callbacks, 'callback pages')).baseUrl;
  }, 60000);

  afterAll(async () => {
    // What was started is closed by test/support/jest-setup.ts even when beforeAll failed half-way.
    await browser?.close();
    await svc?.stop();
  });

  /**
   * A schema of its own for each run: an approved mapping is remembered for the organization,
   * schema and headers, and one test's approval must not pre-fill another test's run.
   */
  async function freshSchema(): Promise<string> {
    const created = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'People', fields: PEOPLE_FIELDS },
    });
    return created.body.data.id as string;
  }

  async function createRun(body: Record<string, unknown> = {}) {
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: await freshSchema(), filename: 'people.csv', ...body },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; review_url: string; upload: any };
  }

  async function readyRun(body: Record<string, unknown> = {}, content = csv()) {
    const run = await createRun(body);
    expect((await upload(run, content)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.id, (r) => r.review_state === 'active');
    return run;
  }

  async function openPage(url: string, options: { width?: number; locale?: string } = {}): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: options.width ?? 1100, height: 900 },
      locale: options.locale ?? 'en-US',
    });
    const page = await context.newPage();
    await page.goto(url);
    return page;
  }

  /** Opens a review link whose first `refused` asks for the review find the service unreachable; `asks`: when each ask was made. */
  async function openUnreachable(url: string, refused: number, viewport: { width: number; height: number }) {
    const context = await browser.newContext({ viewport, locale: 'en-US' });
    const page = await context.newPage();
    const asks: number[] = [];
    let left = refused;
    await page.route('**/state?**', async (route) => {
      asks.push(Date.now());
      if (left-- > 0) await route.abort('connectionrefused');
      else await route.continue();
    });
    await page.goto(url);
    return { page, context, asks };
  }

  /** Waits (briefly) until the element with this id has the keyboard focus. */
  const focusReaches = (page: Page, id: string) =>
    page.waitForFunction((want) => document.activeElement?.id === want, id, { timeout: 3000 });

  it('maps a column, follows it in the preview, approves after one confirmation, and goes to the success callback', async () => {
    const run = await readyRun({ success_callback: `${callbackBase}/done?from=review`, column_labels: { first_name: 'Given name' } });
    const page = await openPage(run.review_url);

    // One select per field, named by its label (column_labels override, else label, else name).
    const email = page.getByRole('combobox', { name: 'Email' });
    const age = page.getByRole('combobox', { name: 'age' });
    await expect(email.inputValue()).resolves.toBe('E-mail');
    await expect(page.getByRole('combobox', { name: 'Given name' }).count()).resolves.toBe(1);
    await expect(age.inputValue()).resolves.toBe('');
    // Type and requirement shown beside each field.
    const emailRow = page.locator('li.field[data-row="email"]');
    await expect(emailRow.innerText()).resolves.toMatch(/Required[\s\S]*Email[\s\S]*Email address/);

    // Whole-file count before the change: only the two rows without email.
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();
    await expect(page.locator('#preview tbody tr').count()).resolves.toBe(20);
    const badBefore = await page.locator('#preview td.bad').count();
    expect(badBefore).toBe(1); // row 3's missing email; row 27 is past the preview

    // The preview shows values after transformations (email lower-cased).
    await expect(page.locator('#preview tbody tr').first().innerText()).resolves.toContain('user1@example.com');

    await age.selectOption('Years');
    // The preview and the count follow without a reload; row 25 (beyond the preview) counts.
    await page.getByText(`4 of ${ROWS} rows have problems.`).waitFor();
    await expect(page.locator('#preview td.bad').count()).resolves.toBe(2);
    // The reason is written in the cell, not only in a tooltip.
    await expect(page.locator('#preview tbody tr').nth(4).locator('td.bad .reason').innerText()).resolves.toBe(
      'Not a valid value for Whole number',
    );
    await page.getByText('Changes saved.').waitFor();
    await screenshot(page, '01-active-mapped');

    // The change is saved: a reload shows it.
    await page.reload();
    await expect(page.getByRole('combobox', { name: 'age' }).inputValue()).resolves.toBe('Years');
    await page.getByText(`4 of ${ROWS} rows have problems.`).waitFor();

    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toContain('4 rows have problems.');
    await screenshot(page, '02-approve-confirmation');
    // The page leaves for the callback 1.2 s after it says so: held until the page has been read, on a busy machine too.
    const leaving = await holdRequests(page, `${callbackBase}/**`);
    await dialog.getByRole('button', { name: 'Yes, approve' }).click();

    await page.getByRole('heading', { name: 'Approved' }).waitFor();
    await expect(page.getByText(`Taking you back to ${new URL(callbackBase).host}`).count()).resolves.toBe(1);
    await screenshot(page, '03-approved-redirecting');
    leaving.release();
    await page.waitForURL(/\/done\?/);
    await leaving.stop();
    const landed = new URL(page.url());
    expect(landed.searchParams.get('transformation_id')).toBe(run.id);
    expect(landed.searchParams.get('from')).toBe('review');
    expect(callbackHits.some((u) => u.includes(`transformation_id=${run.id}`))).toBe(true);

    const done = await waitForRun(svc, org.apiKey, run.id, (r) => r.stage === 'final' && r.status === 'completed');
    expect(done.mapping_rule).toMatchObject({ email: 'E-mail', age: 'Years' });

    // Loaded again later: read-only, says what happened, no redirect.
    const again = await openPage(run.review_url);
    await again.getByRole('heading', { name: 'Approved' }).waitFor();
    await expect(again.getByRole('combobox', { name: 'Email' }).isDisabled()).resolves.toBe(true);
    await expect(again.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await expect(again.getByText('This review is read-only.').count()).resolves.toBe(1);
    await again.context().close();
    await page.context().close();
  });

  it('lists every row with problems, past the preview, filtered by field and kind, each reason written in its cell', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();
    const section = page.getByRole('region', { name: 'Rows with problems' });
    const rowNumbers = () => page.locator('#problem-rows tbody th').allInnerTexts();
    await page.getByText('Page 1 of 1 · matching rows: 2').waitFor();
    await expect(rowNumbers()).resolves.toEqual(['3', '27']); // row 27 is past the 20-row preview
    await expect(page.locator('#problem-rows tbody tr').nth(1).locator('td.bad .reason').innerText()).resolves.toBe(
      'Required value missing',
    );

    await page.getByRole('combobox', { name: 'age' }).selectOption('Years');
    await page.getByText('Page 1 of 1 · matching rows: 4').waitFor();
    await expect(rowNumbers()).resolves.toEqual(['3', '5', '25', '27']);
    await section.getByRole('combobox', { name: 'Problem' }).selectOption('type');
    await page.getByText('Page 1 of 1 · matching rows: 2').waitFor();
    await expect(rowNumbers()).resolves.toEqual(['5', '25']);
    await section.getByRole('combobox', { name: 'Problem' }).selectOption('');
    await section.getByRole('combobox', { name: 'Field' }).selectOption({ label: 'Email (2)' });
    await page.getByText('Page 1 of 1 · matching rows: 2').waitFor();
    await expect(rowNumbers()).resolves.toEqual(['3', '27']);
    await screenshot(page, '01b-problem-rows');
    await page.context().close();
  });

  it('fixes values: a normaliser over a field, undo, a cell edit by keyboard; approval leaves out the rows still with problems', async () => {
    // Rows 5 and 25 write the age as an amount ("$1,234"), which the amount normaliser reads.
    const run = await readyRun({}, csv().replace(/,abc,/g, ',"$1,234",'));
    const page = await openPage(run.review_url);
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();
    await page.getByRole('combobox', { name: 'age' }).selectOption('Years');
    await page.getByText(`4 of ${ROWS} rows have problems.`).waitFor();
    // Nothing to undo yet: no undo on screen.
    await expect(page.getByRole('button', { name: 'Undo last fix' }).isVisible()).resolves.toBe(false);

    const section = page.getByRole('region', { name: 'Rows with problems' });
    await section.getByRole('combobox', { name: 'Field' }).selectOption({ label: 'age (2)' });
    await page.getByRole('heading', { name: 'Fix every value of age' }).waitFor();
    await page.getByRole('button', { name: 'Amounts to plain numbers' }).click();
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();
    await page.getByText('Fixes in force: 1').waitFor();
    // The page's message says what the fix did, once it is counted; its undo too.
    await page.getByText('Fix saved. The rows were checked again. Rows with problems: 4 before, 2 now.').waitFor();
    await expect(page.locator('#preview tbody tr').nth(4).locator('td').nth(2).innerText()).resolves.toBe('1234');

    await page.getByRole('button', { name: 'Undo last fix' }).click();
    await page.getByText(`4 of ${ROWS} rows have problems.`).waitFor();
    await page.getByText('Last fix undone. The rows were checked again. Rows with problems: 2 before, 4 now.').waitFor();
    await page.getByRole('button', { name: 'Amounts to plain numbers' }).click();
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();

    // Row 3's missing e-mail, fixed in its cell by keyboard: the Fix button, type, Enter.
    await section.getByRole('combobox', { name: 'Field' }).selectOption('');
    await page.getByRole('button', { name: 'Fix the value of Email in row 3' }).first().focus();
    await page.keyboard.press('Enter');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.getByRole('textbox', { name: 'New value of Email in row 3' }).fill('Row3@Example.com');
    await page.keyboard.press('Enter');
    await page.getByText(`1 of ${ROWS} rows has problems.`).waitFor();
    await expect(page.locator('#preview tbody tr').nth(2).locator('td').first().innerText()).resolves.toBe('row3@example.com');
    // The editor is gone with the fixed value: the keyboard is not dropped on the page's body but on the count.
    await focusReaches(page, 'problems');
    await screenshot(page, '01c-fixes');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('group', { name: 'Rows that still have a problem:' }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.getByRole('radio', { name: 'Leave them out of the output' }).check();
    await page.getByRole('button', { name: 'Yes, approve' }).click();
    const done = await waitForRun(svc, org.apiKey, run.id, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done.rows_excluded).toBe(1);
    expect(done.processed_rows).toBe(ROWS); // every row processed: written, or left out
    // The approved page says what was left out, and offers no choice of encoding any more (nor how to make one).
    await page.getByText('1 row that still had a problem was left out of the output.').waitFor({ timeout: 30_000 });
    await expect(page.getByText('If letters look wrong', { exact: false }).count()).resolves.toBe(0);
    await expect(page.getByRole('combobox', { name: 'Text encoding' }).isDisabled()).resolves.toBe(true);
    // Its preview is not what was delivered (the row with a problem is still in it): the caption says so.
    await expect(page.locator('#preview-caption').innerText()).resolves.toBe(
      'The first rows of the file: those that still had a problem are not in the output',
    );
    await expect(
      page.getByRole('grid', { name: 'The first rows of the file: those that still had a problem are not in the output' }).count(),
    ).resolves.toBe(1);
    await page.context().close();
  });

  it('cancels after one confirmation; without a cancel callback the page says it can be closed', async () => {
    // A file with the columns of one approved before: its columns come matched as then, and the page says so while they may change.
    const schema = { schema_id: await freshSchema() };
    const earlier = await readyRun(schema);
    expect((await reviewApi(earlier.review_url).approve({ email: 'E-mail' })).status).toBe(200);
    // The approved mapping is remembered after the approval's answer: a file that comes later opens with it.
    let run = await readyRun(schema);
    for (
      let i = 0;
      !(await reviewApi(run.review_url).state()).body.notices?.some((n: { code: string }) => n.code === 'mapping_remembered');
      i++
    ) {
      if (i > 40) throw new Error('the approved mapping was not remembered');
      await new Promise((r) => setTimeout(r, 100));
      run = await readyRun(schema);
    }
    const page = await openPage(run.review_url);
    await page.locator('[data-notice="mapping_remembered"]').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this review?' });
    await dialog.waitFor();
    // "Go back" changes nothing.
    await dialog.getByRole('button', { name: 'Go back' }).click();
    await expect(dialog.isVisible()).resolves.toBe(false);
    expect((await reviewApi(run.review_url).state()).body.phase).toBe('active');

    await page.getByRole('button', { name: 'Cancel' }).click();
    await dialog.getByRole('button', { name: 'Yes, cancel the review' }).click();
    await page.getByRole('heading', { name: 'Review canceled' }).waitFor();
    await expect(page.getByText('You can close this page now.').count()).resolves.toBe(1);
    // Canceled is not a success: not shown in the success colours (D8).
    await expect(page.locator('.state-closed').getAttribute('class')).resolves.not.toMatch(/\bok\b/);
    await expect(page.getByRole('combobox', { name: 'Email' }).isDisabled()).resolves.toBe(true);
    // "You can change them" is no longer true: the closed review says nothing of it, nor after a reload.
    await expect(page.locator('[data-notice]').count()).resolves.toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Review canceled' }).waitFor();
    await expect(page.locator('[data-notice]').count()).resolves.toBe(0);
    await screenshot(page, '04-canceled');
    const after = await call(`${svc.baseUrl}/v1/transformations/${run.id}`, { token: org.apiKey });
    expect(after.body.review_state).toBe('canceled');
    await page.context().close();
  });

  it('says only what is still true after approval: no stale "Changes saved.", the output being produced, then ready; read-only hints (D8)', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await page.getByRole('combobox', { name: 'age' }).selectOption('Years');
    await page.getByText('Changes saved.').waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Yes, approve' }).click();
    await page.getByRole('heading', { name: 'Approved' }).waitFor();
    await expect(page.getByText('Changes saved.').count()).resolves.toBe(0);
    // The output of 30 rows is written within moments: the open page says so without a reload.
    await page.getByText('The final output is ready.', { exact: false }).waitFor({ timeout: 30_000 });
    await expect(page.getByText('For each field, choose the column', { exact: false }).count()).resolves.toBe(0);
    await page.getByText('The column of your file that feeds each field.').waitFor();
    const later = await openPage(run.review_url);
    await later.getByText('The final output is ready.', { exact: false }).waitFor();
    await expect(later.getByText('being produced', { exact: false }).count()).resolves.toBe(0);
    await later.context().close();
    await page.context().close();
  });

  it('goes to the cancel callback with the run id after canceling', async () => {
    const run = await readyRun({ cancel_callback: `${callbackBase}/canceled` });
    const page = await openPage(run.review_url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the review' }).click();
    await page.waitForURL(/\/canceled\?/);
    expect(new URL(page.url()).searchParams.get('transformation_id')).toBe(run.id);
    await page.context().close();
  });

  it('flags required fields left unmapped and names them in the approval confirmation', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    const email = page.getByRole('combobox', { name: 'Email' });
    await email.selectOption('');
    await expect(page.locator('#f-email-warn').isVisible()).resolves.toBe(true);
    await expect(page.locator('#f-email-warn').innerText()).resolves.toBe('This required field is not mapped.');
    await expect(email.getAttribute('aria-describedby')).resolves.toContain('f-email-warn');
    await expect(email.getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByText(`${ROWS} of ${ROWS} rows have problems.`).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await expect(dialog.innerText()).resolves.toContain('Required fields not mapped: Email.');
    await screenshot(page, '05-required-unmapped-confirmation');
    await page.keyboard.press('Escape');
    await expect(dialog.isVisible()).resolves.toBe(false);
    expect((await reviewApi(run.review_url).state()).body.phase).toBe('active');
    await page.context().close();
  });

  it('waits for the file before the upload (not "being read"), then shows the review without a reload (D8)', async () => {
    const run = await createRun();
    const page = await openPage(run.review_url);
    await page.getByRole('heading', { name: 'Waiting for the file' }).waitFor();
    await page.getByText('No file has been uploaded yet.', { exact: false }).waitFor();
    await expect(page.getByText('The file is being read.', { exact: false }).count()).resolves.toBe(0);
    await screenshot(page, '06-preparing');
    await page.evaluate(() => {
      (window as any).sameDocument = true;
    });
    expect((await upload(run, csv())).status).toBe(200);
    await page.getByRole('heading', { name: 'Match your columns' }).waitFor({ timeout: 15000 });
    await expect(page.evaluate(() => (window as any).sameDocument)).resolves.toBe(true);
    await page.context().close();
  });

  it('says when the review cannot be loaded and asks again by itself; "Try again" asks at once, from the keyboard', async () => {
    const run = await readyRun();
    // The service not reached: the first ask, then (after the page asked again by itself) one more.
    const { page, context, asks } = await openUnreachable(run.review_url, 2, { width: 360, height: 740 });
    await page.getByRole('heading', { name: 'The review could not be loaded' }).waitFor();
    await page
      .getByText(
        'The page could not load the review: the service could not be reached; check the connection. It tries again by itself in a few seconds.',
      )
      .waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, '07b-unreachable-360');
    // Asked again without a reload (after 2 s), and still unreachable: the same screen.
    for (let i = 0; i < 100 && asks.length < 2; i++) await page.waitForTimeout(100);
    expect(asks.length).toBe(2);
    await page.getByRole('heading', { name: 'The review could not be loaded' }).waitFor();
    // "Try again" from the keyboard, before the page's own next ask (4 s later): the review.
    await page.getByRole('button', { name: 'Try again' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Match your columns' }).waitFor();
    expect(asks.length).toBeGreaterThanOrEqual(3);
    await context.close();
  });

  it('checks for the file once every 1.5 s however often "Try again" was pressed', async () => {
    const run = await createRun();
    const { page, context, asks } = await openUnreachable(run.review_url, 1, { width: 1100, height: 900 });
    const again = page.getByRole('button', { name: 'Try again' });
    await again.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter').catch(() => undefined); // the button may be gone already
    await page.getByRole('heading', { name: 'Waiting for the file' }).waitFor();
    const from = Date.now();
    await page.waitForTimeout(4600);
    // One chain of checks, 1.5 s apart: three in 4.6 s (two chains made six).
    expect(asks.filter((at) => at >= from).length).toBeLessThanOrEqual(4);
    await context.close();
  });

  it('keeps waiting for the file when one check for news fails, says so, and shows the review once it is read', async () => {
    const run = await createRun();
    const page = await openPage(run.review_url);
    await page.getByRole('heading', { name: 'Waiting for the file' }).waitFor();
    let failing = 1;
    await page.route('**/state?**', async (route) => {
      if (failing-- > 0)
        await route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"service_unavailable"}}' });
      else await route.continue();
    });
    await page
      .getByText('This page could not check for news: the service is not available right now. It tries again by itself in a few seconds.')
      .waitFor();
    await expect(page.getByRole('heading', { name: 'Waiting for the file' }).count()).resolves.toBe(1);
    await screenshot(page, '06b-preparing-check-failed');
    expect((await upload(run, csv())).status).toBe(200);
    await page.getByRole('heading', { name: 'Match your columns' }).waitFor({ timeout: 20000 });
    await expect(page.getByText('could not check for news', { exact: false }).count()).resolves.toBe(0);
    await page.context().close();
  });

  it('shows a failed run with its error message and nothing to act on', async () => {
    const run = await createRun();
    expect((await upload(run, '')).status).toBe(200);
    const failed = await waitForRun(svc, org.apiKey, run.id, (r) => r.status === 'failed');
    const page = await openPage(run.review_url);
    await page.getByRole('heading', { name: 'This run failed' }).waitFor();
    await expect(page.getByText(failed.error.message, { exact: false }).count()).resolves.toBe(1);
    await expect(page.getByRole('button').count()).resolves.toBe(0);
    await screenshot(page, '07-failed');
    await page.context().close();
  });

  it('answers a tampered link with a "link invalid" page and no data', async () => {
    const run = await readyRun();
    const url = new URL(run.review_url);
    const other = await createRun();
    const forged = new URL(url);
    forged.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}xx`);
    const swapped = new URL(url);
    swapped.pathname = `/review/${other.id}`;
    for (const [name, target] of [
      ['signature', forged],
      ['run-id', swapped],
    ] as const) {
      const page = await openPage(target.toString(), { locale: 'de-DE' });
      // Before the run is known, the page speaks the browser's language.
      await page.getByRole('heading', { name: 'Dieser Prüflink ist ungültig' }).waitFor();
      await expect(page.locator('select').count()).resolves.toBe(0);
      await expect(page.content()).resolves.not.toContain('E-mail');
      await screenshot(page, `08-invalid-link-${name}`);
      await page.context().close();
    }
    const missing = await openPage(`${url.origin}${url.pathname}`);
    await missing.getByRole('heading', { name: 'This review link is invalid' }).waitFor();
    await missing.context().close();
  });

  it('renders the dark theme with readable contrast, and the light theme too', async () => {
    const dark = await readyRun({ appearance: 'dark' });
    const light = await readyRun({ appearance: 'light' });
    for (const [name, run] of [
      ['dark', dark],
      ['light', light],
    ] as const) {
      const page = await openPage(run.review_url);
      await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();
      await expect(page.locator('html').getAttribute('data-theme')).resolves.toBe(name);
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe(name === 'dark' ? 'rgb(18, 19, 22)' : 'rgb(255, 255, 255)');
      // Every kind of text on the page against what is behind it: WCAG AA (4.5:1).
      const samples = await colorsOf(page, 'h1, h2, p, label, .badge, th, td, button, select, #problems');
      expect(samples.length).toBeGreaterThan(20);
      for (const s of samples) {
        const ratio = contrastRatio(s.color, s.background);
        if (ratio < 4.5) throw new Error(`${name}: "${s.text}" has contrast ${ratio.toFixed(2)} (${s.color} on ${s.background})`);
      }
      await screenshot(page, `09-theme-${name}`);
      await expect(axeViolations(page)).resolves.toEqual([]);
      await page.context().close();
    }
  });

  it('renders Arabic right-to-left with every string translated', async () => {
    const run = await readyRun({ locale: 'AR' });
    const page = await openPage(run.review_url);
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ar');
    await page.getByRole('heading', { name: 'طابِق أعمدتك' }).waitFor();
    await page.getByRole('button', { name: 'موافقة' }).waitFor();
    await expect(page.getByRole('button', { name: 'إلغاء' }).count()).resolves.toBe(1);
    // Counts in Arabic digits, through the catalog's plural forms.
    await page.locator('#problems').filter({ hasText: 'من أصل' }).waitFor();
    // The approve button sits at the left in RTL (actions align to the inline end).
    const approveBox = await page.getByRole('button', { name: 'موافقة' }).boundingBox();
    expect(approveBox!.x).toBeLessThan(550);
    // No English string of the page is left: only data from the file is not Arabic.
    const text = await page.locator('body').innerText();
    for (const english of ['Approve', 'Cancel', 'Preview', 'Required', 'Not mapped', 'rows', 'Match your columns']) {
      expect(text).not.toContain(english);
    }
    await screenshot(page, '10-arabic-rtl');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.context().close();
  });

  it('keeps file values in their own direction on an Arabic page: "+49 30 12342" stays as written (D3)', async () => {
    const run = await readyRun({ locale: 'ar' }, 'E-mail,Customer No.\nann@x.org,+49 30 12342\n');
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'Customer No.' });
    const page = await openPage(run.review_url);
    const cell = page.locator('#preview tbody tr').first().locator('td').nth(1);
    await cell.filter({ hasText: '12342' }).waitFor();
    // Where the first and the last character are drawn: left to right, as written.
    const [first, last] = await cell.evaluate((td) => {
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      const node = walker.nextNode() as Text;
      const at = (i: number) => {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        return range.getBoundingClientRect().x;
      };
      return [at(0), at(node.length - 1)];
    });
    expect(first).toBeLessThan(last);
    // A header ending in punctuation keeps it at its end in the column choices (isolated, not reordered).
    const option = await page.getByRole('combobox', { name: 'first_name' }).locator('option:checked').innerText();
    expect(option).toBe('\u2068Customer No.\u2069');
    await page.context().close();
  });

  it('keeps the row number in sight when the rows scroll sideways, shows cut values whole on hover, and wraps a long caption (D9)', async () => {
    const long = 'x'.repeat(120);
    const run = await readyRun({ locale: 'pl' }, `E-mail,First,Years,Birthday\nann@x.org,${long},30,01/01/1990\n`);
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' });
    const page = await openPage(run.review_url, { width: 390 });
    const wrap = page.locator('.table-wrap').first();
    await page.locator('#preview tbody tr').first().waitFor();
    await wrap.evaluate((w) => (w.scrollLeft = w.scrollWidth));
    const wrapBox = (await wrap.boundingBox())!;
    const rowHead = (await page.locator('#preview tbody th').first().boundingBox())!;
    expect(rowHead.x).toBeGreaterThanOrEqual(wrapBox.x - 1);
    // Its heading stays in sight with it, whole.
    const numberHeading = (await page.locator('#preview thead th').first().boundingBox())!;
    expect(Math.abs(numberHeading.x - rowHead.x)).toBeLessThanOrEqual(1);
    const cut = page.locator('#preview tbody tr').first().locator('td').nth(1);
    await expect(cut.getAttribute('title')).resolves.toBe(long.toUpperCase());
    // The caption names the table and stays whole in view while the rows scroll sideways.
    await page.getByRole('grid', { name: 'Pierwszy wiersz w postaci, w jakiej zostanie dostarczony' }).waitFor();
    const caption = page.locator('#preview-caption');
    const fits = await caption.evaluate((c) => {
      const box = c.getBoundingClientRect();
      return c.scrollWidth <= c.clientWidth && box.left >= 0 && box.right <= document.documentElement.clientWidth;
    });
    await screenshot(page, '12-polish-phone-scrolled');
    expect(fits).toBe(true);
    await page.context().close();
  });

  it('keeps the actions bar above the tables on a phone: a tap on Approve reaches Approve, not a row number under it', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `p${i}@x.org,Name${i},${20 + i},01/01/1990`).join('\n');
    const run = await readyRun({}, `E-mail,First,Years,Birthday\n${rows}\n`);
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' });
    const page = await openPage(run.review_url, { width: 360 });
    await page.locator('#preview tbody tr').nth(19).waitFor();
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    // Every row of the preview passes under the bar in turn: at none of them does the row's sticky number cover the button.
    const covered: number[] = [];
    for (let r = 0; r < 20; r++) {
      await page
        .locator('#preview tbody tr')
        .nth(r)
        .evaluate((row) => {
          const bar = document.querySelector('.actions')!.getBoundingClientRect();
          window.scrollBy(0, row.getBoundingClientRect().top - bar.top + 2);
        });
      const box = (await approve.boundingBox())!;
      const hit = await page.evaluate(
        ([x, y]) => !!document.elementFromPoint(x, y)?.closest('.actions'),
        [box.x + 4, box.y + box.height / 2],
      );
      if (!hit) covered.push(r);
    }
    await screenshot(page, '13-phone-actions-over-rows');
    expect(covered).toEqual([]);
    await page.context().close();
  });

  it('shows what each column holds, marks columns in use, and warns when one column feeds two fields (D5)', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    const email = page.getByRole('combobox', { name: 'Email' });
    await page.locator('#f-email-samples').filter({ hasText: 'User1@Example.com' }).waitFor();
    await expect(page.locator('#f-email-samples').innerText()).resolves.toMatch(
      /^Examples: .*User1@Example\.com.*User2@Example\.com.*User4@Example\.com/,
    );
    await expect(email.getAttribute('aria-describedby')).resolves.toContain('f-email-samples');

    await page.getByRole('combobox', { name: 'age' }).selectOption('First');
    await page.getByRole('combobox', { name: 'first_name' }).selectOption('First');
    await page.getByText('This column also feeds first_name.', { exact: false }).waitFor();
    await page.getByText('This column also feeds age.', { exact: false }).waitFor();
    const firstOption = await email.locator('option[value="First"]').innerText();
    expect(firstOption).toContain('used by first_name, age');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, '13-column-samples-shared');
    await page.context().close();
  });

  it("maps a picklist's values to the allowed ones, with suggestions filled in, by keyboard", async () => {
    const tiers = await setupOrganization(svc, {
      email: { description: 'E-mail', data_type: 'email', is_required: true },
      tier: {
        description: 'Customer tier',
        data_type: 'enum',
        is_required: false,
        allowed_values: [
          { value: 'platinum', label: 'Platinum' },
          { value: 'gold', label: 'Gold' },
        ],
      },
    });
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: tiers.apiKey,
      body: { schema_id: tiers.schemaId, filename: 'tiers.csv' },
    });
    await upload(created.body, 'email,tier\na@x.org,Plat.\nb@x.org,GOLD\nc@x.org,bronze\n');
    await waitForRun(svc, tiers.apiKey, created.body.id, (r) => r.review_state === 'active');
    const page = await openPage(created.body.review_url);
    await page.getByText('3 of 3 rows have problems.', { exact: false }).or(page.getByText('2 of 3 rows have problems.')).waitFor();
    // The labels the schema gives, and the values a file must hold.
    await page
      .getByText(/^Allowed: \u2068?Platinum\u2069? \(value \u2068?platinum\u2069?\), \u2068?Gold\u2069? \(value \u2068?gold\u2069?\)$/)
      .waitFor();
    await page.getByRole('button', { name: 'Map values' }).click();
    await page.getByRole('heading', { name: 'Values of tier' }).waitFor();
    await expect(page.locator('.picklist').innerText()).resolves.not.toContain('null');
    await page.getByText('Choice from a list', { exact: true }).waitFor();
    await page.getByText('Not one of the allowed values').first().waitFor();
    // A value that names an allowed one in another case says which value to write.
    await page
      .getByText(/^Not one of the allowed values \(write \u2068?gold\u2069?\)$/)
      .first()
      .waitFor();
    // Suggestions are filled in; a value with none is kept as it is until the reviewer chooses.
    await expect(page.getByRole('combobox', { name: 'Plat.' }).inputValue()).resolves.toBe('platinum');
    await expect(page.getByRole('combobox', { name: 'GOLD' }).inputValue()).resolves.toBe('gold');
    await expect(page.getByRole('combobox', { name: 'bronze' }).inputValue()).resolves.toBe('');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.getByRole('combobox', { name: 'bronze' }).focus();
    await page.keyboard.press('ArrowDown'); // Platinum
    await page.keyboard.press('ArrowDown'); // Gold
    await page.getByRole('button', { name: 'Save value mapping' }).click();
    await page.getByText('No problems found in 3 rows.').waitFor();
    await expect(page.locator('#preview tbody tr').nth(2).locator('td').nth(1).innerText()).resolves.toBe('gold');
    await screenshot(page, '14-picklist');
    await page.context().close();
  });

  it("says why an action failed in the reviewer's language, not the service's English (D4)", async () => {
    const run = await readyRun({ locale: 'ar' });
    await reviewApi(run.review_url).edit({ email: 'E-mail', age: 'Years' });
    const page = await openPage(run.review_url);
    const section = page.locator('#problem-rows-section');
    await section.locator('#problem-field').waitFor();
    await page.locator('#problem-field option[value="age"]').waitFor({ state: 'attached' });
    await page.locator('#problem-field').selectOption('age');
    // Replace with nothing to find: said beside the form, in Arabic, before anything is sent.
    await page.locator('#fix-replace-all').click();
    const said = await page.locator('#fix-replace-error').innerText();
    expect(said).toBe('اكتب النص المراد البحث عنه.');
    expect(said).not.toMatch(/[A-Za-z]/);
    await page.context().close();
  });

  it("scrolls a refused bulk fix's reason above the actions bar on a phone", async () => {
    const run = await readyRun({}, 'E-mail,First,Years,Birthday\na@x.org,A,31,1990.01.05\nb@x.org,B,30,01/02/1990\n');
    await reviewApi(run.review_url).edit({ email: 'E-mail', age: 'Years', born: 'Birthday' });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(run.review_url);
    await page.locator('#problem-field option[value="born"]').waitFor({ state: 'attached' });
    await page.locator('#problem-field').selectOption('born');
    // The bad date's reason names the pattern to write it in (what the field's date_format writes).
    await expect(page.getByText('Not a valid value for Date: write it as \u2068yyyy-MM-dd\u2069').count()).resolves.toBeGreaterThan(0);
    const pattern = page.getByRole('textbox', { name: 'How the dates are written, for example dd.MM.yyyy' });
    await pattern.fill('banana');
    await pattern.press('Enter');
    const reason = page.getByText('This is not a date pattern the service can read.', { exact: false });
    await reason.waitFor();
    await page.waitForTimeout(300); // a smooth scroll, if any, ends
    const [said, bar] = await Promise.all([reason.boundingBox(), page.locator('.actions').boundingBox()]);
    expect(said!.y + said!.height).toBeLessThanOrEqual(bar!.y + 0.5);
    await expect(pattern.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await screenshot(page, '15b-bulk-fix-refused-360');
    await context.close();
  });

  it('says what is wrong with a bulk fix beside its form, on the input at fault, which gets the keyboard; sent again, it goes', async () => {
    // Row 1's age is not a whole number and its birthday is not written dd/MM/yyyy.
    const run = await readyRun({}, 'E-mail,First,Years,Birthday\na@x.org,A,x1,1990.01.05\nb@x.org,B,30,01/02/1990\n');
    await reviewApi(run.review_url).edit({ email: 'E-mail', age: 'Years', born: 'Birthday' });
    const page = await openPage(run.review_url);
    await page.locator('#problem-field option[value="age"]').waitFor({ state: 'attached' });
    await page.locator('#problem-field').selectOption('age');
    const find = page.getByRole('textbox', { name: 'Find' });
    // Enter in an empty Find: nothing is sent, the reason is tied to Find, which keeps the keyboard.
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/fixes?')) sent.push(r.url());
    });
    await find.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Type the text to find.').waitFor();
    await expect(find.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(find.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(page.getByRole('textbox', { name: 'Find' }).evaluate((el) => el.getAttribute('aria-describedby'))).resolves.toBe(
      'fix-replace-error',
    );
    expect(sent).toEqual([]);
    await screenshot(page, '15-bulk-fix-refused');
    await expect(axeViolations(page)).resolves.toEqual([]);
    // Typed and sent: the reason goes, the fix is saved.
    await page.keyboard.type('x');
    await page.keyboard.press('Enter');
    await page.getByText(/^Fix saved\. The rows (are being|were) checked again\.$/).waitFor();
    await expect(page.locator('#fix-replace-error').count()).resolves.toBe(0);
    await expect(find.getAttribute('aria-invalid')).resolves.toBeNull();
    expect(sent).toHaveLength(1);
    // "Replace with" is named by its label, and the label gives it the keyboard.
    await page.getByText('Replace with', { exact: true }).click();
    await expect(page.getByRole('textbox', { name: 'Replace with' }).evaluate((el) => el === document.activeElement)).resolves.toBe(true);

    // A date pattern the service cannot read: refused by the service, said beside the pattern, in words for people.
    await page.locator('#problem-field option[value="born"]').waitFor({ state: 'attached' });
    await page.locator('#problem-field').selectOption('born');
    const pattern = page.getByRole('textbox', { name: 'How the dates are written, for example dd.MM.yyyy' });
    await pattern.fill('hello');
    await page.getByRole('button', { name: 'Rewrite the dates' }).click();
    await page.getByText('This is not a date pattern the service can read.', { exact: false }).waitFor();
    await expect(pattern.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(pattern.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(page.locator('#live').innerText()).resolves.not.toContain('not saved');
    await page.context().close();
  });

  it('offers the bulk fixes of every field, with or without problems: "NY" is no broken rule, but the reviewer may still want "New York"', async () => {
    // No row breaks a rule: the section is "Change a column", with a field to choose and no problem filter or table.
    const run = await readyRun(
      {},
      'E-mail,First,Years,Birthday\na@x.org,NY,30,01/02/1990\nb@x.org,Ann,31,02/02/1990\nc@x.org,NY,32,03/02/1990\n',
    );
    await reviewApi(run.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years', born: 'Birthday' });
    const page = await openPage(run.review_url);
    const section = page.getByRole('region', { name: 'Change a column' });
    await section.waitFor();
    await expect(page.getByRole('heading', { name: 'Rows with problems' }).count()).resolves.toBe(0);
    await expect(section.getByRole('combobox', { name: 'Problem' }).count()).resolves.toBe(0);
    await expect(section.getByText('No row has a problem.', { exact: false }).isVisible()).resolves.toBe(true);
    // By keyboard alone: the field list, then Find, Replace with and Enter.
    await section.getByRole('combobox', { name: 'Field' }).selectOption({ label: 'first_name' });
    // No count beside a field where no field has problems: "first_name (0)" said nothing.
    await expect(section.locator('#problem-field option:checked').innerText()).resolves.toBe('first_name');
    await section.getByRole('textbox', { name: 'Find' }).focus();
    await page.keyboard.type('NY');
    await page.keyboard.press('Tab');
    await page.keyboard.type('New York');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await expect(section.getByRole('checkbox', { name: 'Whole value only' }).isChecked()).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText(/^Fix saved\. /).waitFor();
    // first_name is delivered upper-cased: the two "NY" are now "NEW YORK", "Ann" is left as it was.
    await page.locator('#preview tbody tr', { hasText: 'NEW YORK' }).nth(1).waitFor();
    await expect(page.locator('#preview tbody').innerText()).resolves.toContain('ANN');
    const fixes = (await reviewApi(run.review_url).state()).body.value_fixes;
    expect(fixes).toEqual([
      expect.objectContaining({ field: 'first_name', fix: expect.objectContaining({ kind: 'replace', find: 'NY' }) }),
    ]);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, '15c-change-a-column');
    await page.context().close();

    // With problems, the fields without any are offered too, after those with, under their own heading; not a field
    // without a column (born here), whose values are all blank.
    const bad = await readyRun({}, 'E-mail,First,Years,Birthday\na@x.org,NY,x1,01/02/1990\nb@x.org,Ann,31,02/02/1990\n');
    await reviewApi(bad.review_url).edit({ email: 'E-mail', first_name: 'First', age: 'Years', born: null });
    const second = await openPage(bad.review_url);
    await second.locator('#problem-field option[value="age"]').waitFor({ state: 'attached' });
    const groups = () =>
      second
        .locator('#problem-field optgroup')
        .evaluateAll((els) =>
          els.map((g) => ({ label: g.getAttribute('label'), options: Array.from(g.querySelectorAll('option'), (o) => o.textContent) })),
        );
    await expect(groups()).resolves.toEqual([{ label: 'Fields without problems', options: ['Email', 'first_name'] }]);
    // Chosen, such a field stays where it was, without a count.
    await second.locator('#problem-field').selectOption('first_name');
    await second.getByRole('heading', { name: 'Fix every value of first_name' }).waitFor();
    await second.getByText('No row matches these filters.').waitFor();
    await expect(groups()).resolves.toEqual([{ label: 'Fields without problems', options: ['Email', 'first_name'] }]);
    // The last bad cell fixed from the grid: the grid goes with it, and the keyboard lands on the section's new heading.
    await second.locator('#problem-field').selectOption('');
    await second.getByText('Page 1 of 1 · matching rows: 1').waitFor();
    await second.locator('#problem-rows tbody tr').first().locator('td').nth(2).click();
    await second.keyboard.press('Enter');
    await second.keyboard.press('ControlOrMeta+a');
    await second.keyboard.type('40');
    await second.keyboard.press('Enter');
    await second.getByRole('heading', { name: 'Change a column' }).waitFor();
    await expect(second.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Change a column');
    await second.context().close();
  });

  it('lets the reviewer say the first row holds the column names when the file was read as headerless (D6)', async () => {
    // An empty column name: read as a file without header, its header row becomes data row 1.
    const run = await readyRun({}, 'E-mail,,Name\nann@x.org,x,Ann\nbob@x.org,y,Bob\n');
    const page = await openPage(run.review_url);
    const box = page.getByRole('checkbox', { name: 'The first row of the file holds the column names' });
    await box.waitFor();
    await expect(box.isChecked()).resolves.toBe(false);
    await page.getByText('3 rows', { exact: false }).first().waitFor();
    await box.check();
    await page
      .getByText('Columns read again: each field keeps the column it had; the others were suggested from the column names.')
      .waitFor();
    await expect(page.getByRole('checkbox', { name: 'The first row of the file holds the column names' }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('combobox', { name: 'Email' }).inputValue()).resolves.toBe('E-mail');
    await expect(page.locator('#preview tbody tr').first().locator('td').first().innerText()).resolves.toBe('ann@x.org');
    await expect(page.locator('#summary').innerText()).resolves.toContain('2 rows');
    await expect(page.locator(':focus').getAttribute('id')).resolves.toBe('first-row-header');
    const state = (await reviewApi(run.review_url).state()).body;
    expect(state).toMatchObject({ input_has_header: true, source_headers: ['E-mail', 'column_2', 'Name'], total_rows: 2 });
    // Unchecked again: the same columns under their numbers, each field on the column it had (not left unmapped).
    await page.getByRole('checkbox', { name: 'The first row of the file holds the column names' }).uncheck();
    await page.locator('#summary', { hasText: '3 rows' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Email' }).inputValue()).resolves.toBe('column_1');
    await page.context().close();
  });

  it('says a file of one record read under a guessed header has no rows, and how to read that row as data', async () => {
    const run = await readyRun({}, 'ann@x.org,Ann,Berlin\n');
    const page = await openPage(run.review_url);
    const said = page.getByText(
      'The file has no rows under its column names. If its first row is data, untick “The first row of the file holds the column names”.',
    );
    await said.waitFor();
    // Not said as a success.
    await expect(page.getByText('No problems found', { exact: false }).count()).resolves.toBe(0);
    await page.getByRole('checkbox', { name: 'The first row of the file holds the column names' }).uncheck();
    await page.locator('#summary', { hasText: '1 row' }).waitFor();
    await expect(said.count()).resolves.toBe(0);
    await page.context().close();
  });

  it('does not scroll sideways on a phone when the preview has bad cells, in Arabic too (D1)', async () => {
    for (const locale of ['en', 'ar']) {
      const run = await readyRun({ locale });
      await reviewApi(run.review_url).edit({ email: 'E-mail', age: 'Years' });
      const page = await openPage(run.review_url, { width: 390 });
      await page.locator('#preview td.bad').first().waitFor();
      // Screen-reader-only text inside a cell (the open editor's label) must stay in the preview's scroll box.
      await page.locator('#preview td.bad .fix-cell').last().click();
      await page.locator('#preview .cell-edit').waitFor();
      // The defect's cause: visually hidden text in cells far to the right (the page once wrote each
      // bad cell's reason there). Put some back, with the rows scrolled to their start, so that this
      // test fails whenever the preview's scroll box stops containing what is absolutely placed in it.
      await page.locator('#preview').evaluate((table) => {
        table.parentElement!.scrollTo({ left: 0 });
        table.querySelectorAll('tr > :last-child').forEach((td) => {
          const hidden = document.createElement('span');
          hidden.className = 'sr-only';
          hidden.textContent = 'text for screen readers only';
          td.append(hidden);
        });
      });
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect({ locale, scrollWidth }).toEqual({ locale, scrollWidth: clientWidth });
      // The page opens on its content, not off-screen.
      await expect(page.getByRole('heading', { level: 1 }).isVisible()).resolves.toBe(true);
      await page.context().close();
    }
  });

  it('never states a problem count in the approval confirmation while the count is still running (D2)', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url);
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor();
    // A new mapping starts a new count (300 ms after the change): approving at once finds it unfinished. The count is
    // held until the dialog has been read, so that a slow mapping save on a busy machine cannot let it finish first.
    const counting = await holdRequests(page, '**/problems?*');
    await page.getByRole('combobox', { name: 'age' }).selectOption('Years');
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this mapping?' });
    await dialog.waitFor();
    const said = await dialog.innerText();
    expect(said).toContain('has not finished');
    expect(said).not.toMatch(/rows? (have|has) problems/);
    counting.release();
    await counting.stop();
    await dialog.getByRole('button', { name: 'Go back' }).click();
    await page.context().close();
  });

  it('falls back to English for an unsupported locale', async () => {
    const run = await readyRun({ locale: 'sv' });
    const page = await openPage(run.review_url);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await page.context().close();
  });

  it("does not lose an edit between two tabs: the stale save is refused and shows the other tab's mapping", async () => {
    const run = await readyRun();
    const first = await openPage(run.review_url);
    const second = await openPage(run.review_url);
    await expect(second.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('First');
    await first.getByRole('combobox', { name: 'first_name' }).selectOption('Birthday');
    await first.getByText('Changes saved.').waitFor();

    await second.getByRole('combobox', { name: 'age' }).selectOption('Years');
    await second.getByText('Another reviewer changed the mapping in the meantime.', { exact: false }).waitFor();
    await expect(second.getByRole('combobox', { name: 'first_name' }).inputValue()).resolves.toBe('Birthday');
    await expect(second.getByRole('combobox', { name: 'age' }).inputValue()).resolves.toBe('');
    await screenshot(second, '11-concurrent-conflict');
    const state = await reviewApi(run.review_url).state();
    expect(state.body.mapping_rule).toMatchObject({ first_name: 'Birthday', age: null });

    // Now current again, the second tab's next change is saved.
    await second.getByRole('combobox', { name: 'age' }).selectOption('Years');
    await second.getByText('Changes saved.').waitFor();
    expect((await reviewApi(run.review_url).state()).body.mapping_rule).toMatchObject({ first_name: 'Birthday', age: 'Years' });
    await first.context().close();
    await second.context().close();
  });

  it("lists a column in a field's select once the field is near the screen or has the focus: a schema of 400 fields stays usable", async () => {
    // 400 fields over a file of 400 columns were 160,000 options drawn at once (1,000 fields: a million, 20 s to use).
    const WIDE = 400;
    const names = Array.from({ length: WIDE }, (_, i) => `col_${String(i).padStart(3, '0')}`);
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: {
        name: 'Wide',
        fields: Object.fromEntries(names.map((n) => [n, { description: n, data_type: 'string', is_required: false }])),
      },
    });
    expect(schema.status).toBe(201);
    const run = await readyRun(
      { schema_id: schema.body.data.id, filename: 'wide.csv' },
      [names.join(','), names.map((n) => `${n} value`).join(',')].join('\n'),
    );
    const page = await openPage(run.review_url);
    const first = page.getByRole('combobox', { name: names[0], exact: true });
    await first.waitFor();
    // Near the screen: every column, and the one the mapping chose.
    await expect(first.locator('option').count()).resolves.toBe(WIDE + 1);
    await expect(first.inputValue()).resolves.toBe(names[0]);
    // Far down the page: only its chosen column, until it comes near.
    const last = page.getByRole('combobox', { name: names[WIDE - 1], exact: true });
    await expect(last.locator('option').count()).resolves.toBe(2);
    await expect(page.locator('select option').count()).resolves.toBeLessThan((WIDE * WIDE) / 4);
    // By keyboard: the focus brings its columns, and an arrow key moves the choice and saves it.
    await last.focus();
    await page.waitForFunction(
      (name) => document.querySelector<HTMLSelectElement>(`select[data-field="${name}"]`)!.options.length > 2,
      names[WIDE - 1],
    );
    await expect(last.locator('option').count()).resolves.toBe(WIDE + 1);
    await last.press('ArrowUp');
    await expect(last.inputValue()).resolves.toBe(names[WIDE - 2]);
    await page.getByText('Changes saved.').waitFor();
    const state = await reviewApi(run.review_url).state();
    expect(state.body.mapping_rule[names[WIDE - 1]]).toBe(names[WIDE - 2]);
    await page.context().close();
  });

  it('works by keyboard alone at 360 px wide', async () => {
    const run = await readyRun();
    const page = await openPage(run.review_url, { width: 360 });
    await page.getByText(`2 of ${ROWS} rows have problems.`).waitFor({ timeout: 30_000 });
    // Nothing wider than the screen except inside the preview's own scroll area.
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);

    // Tab reaches every select, the preview region and both buttons, in order. Tab moves cell by cell
    // inside a grid (as in a spreadsheet): Ctrl+End then Tab leaves it, as the line above the preview says.
    const reached: string[] = [];
    for (let i = 0; i < 20 && !reached.includes('cancel'); i++) {
      const inGrid = await page.evaluate(() => !!document.activeElement?.closest('[role="grid"] tbody'));
      if (inGrid) await page.keyboard.press('Control+End');
      await page.keyboard.press('Tab');
      reached.push(
        await page.evaluate(() =>
          document.activeElement?.closest('[role="grid"] tbody')
            ? 'gridcell'
            : document.activeElement?.id || document.activeElement?.getAttribute('role') || document.activeElement?.tagName || '',
        ),
      );
    }
    const selects = await page.locator('select').evaluateAll((s) => s.map((e) => e.id));
    for (const id of [...selects, 'region', 'gridcell', 'approve', 'cancel']) expect(reached).toContain(id);

    // Change a mapping with the keyboard: focus the age select, pass three options with the arrow keys (a
    // closed select changes at each one): saved once, when the reviewer stops, with the option reached.
    const before = (await reviewApi(run.review_url).state()).body.mapping_version;
    await page.getByRole('combobox', { name: 'age' }).focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    const reachedOption = await page.getByRole('combobox', { name: 'age' }).inputValue();
    await page.getByText('Changes saved.').waitFor({ timeout: 30_000 });
    const saved = (await reviewApi(run.review_url).state()).body;
    expect([saved.mapping_rule.age, saved.mapping_version]).toEqual([reachedOption, before + 1]);

    // Approve by keyboard: Enter opens the dialog, focus starts on "Go back", Escape closes it.
    await page.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ timeout: 30_000 });
    await focusReaches(page, 'confirm-back');
    await screenshot(page, '12-narrow-dialog');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.keyboard.press('Escape');
    // Closing gives focus back to the button that opened the dialog.
    await focusReaches(page, 'approve');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await focusReaches(page, 'confirm-yes');
    await page.keyboard.press('Enter');
    try {
      await page.getByRole('heading', { name: 'Approved' }).waitFor({ timeout: 20000 });
    } catch (err) {
      // Say what the page showed instead, so a failure here can be understood.
      await screenshot(page, '13-narrow-approve-failed');
      const shown = await page.evaluate(() => ({
        live: document.getElementById('live')?.textContent,
        main: document.getElementById('main')?.innerText.slice(0, 300),
      }));
      throw new Error(`approval did not show: ${JSON.stringify(shown)}; ${(err as Error).message}`, { cause: err });
    }
    await focusReaches(page, 'state-title');
    await screenshot(page, '13-narrow-approved');
    await page.context().close();
  }, 60_000);
});

describe('hosted review page after its deadline', () => {
  let svc: Service;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startService({ REVIEW_TTL_SECONDS: '1' });
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('shows the expired state and accepts nothing', async () => {
    const org = await setupOrganization(svc);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv' },
    });
    expect((await upload(created.body, csv())).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'expired', 10000);
    const page = await (await browser.newContext()).newPage();
    await page.goto(created.body.review_url);
    await page.getByRole('heading', { name: 'This review has expired' }).waitFor();
    await expect(page.locator('select, button').count()).resolves.toBe(0);
    // Only the expired state: not even the file's name or row count.
    await expect(page.locator('#summary').textContent()).resolves.toBe('');
    await expect(page.locator('table').count()).resolves.toBe(0);
    await screenshot(page, '14-expired');
    const review = reviewApi(created.body.review_url);
    expect((await review.approve()).status).toBe(403);
    expect((await review.edit({ email: null })).status).toBe(403);
    expect((await review.preview()).body.error.code).toBe('review_expired');
    await page.context().close();
  });
});

describe('hosted review page after a failed AI suggestion', () => {
  let svc: Service;
  let browser: Browser;
  let vendor: FakeVendor;

  beforeAll(async () => {
    vendor = new FakeVendor();
    await vendor.start();
    svc = await startService({ AI_MAX_ATTEMPTS: '1' });
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await vendor?.stop();
  });

  it('tells the reviewer, in their language, that the columns were matched by name', async () => {
    const org = await setupOrganization(svc);
    const provider = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/providers`, {
      token: ADMIN_TOKEN,
      body: { name: 'p', provider: 'openai', model: 'm', api_key: OPENAI_KEY, base_url: `${vendor.baseUrl}/v1` },
    });
    vendor.script = [{ status: 500 }];
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv', provider_id: provider.body.data.id, locale: 'de' },
    });
    expect((await upload(created.body, csv())).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    const page = await (await browser.newContext()).newPage();
    await page.goto(created.body.review_url);
    const notice = page.locator('[data-notice="ai_suggestion_failed"]');
    await notice.waitFor();
    await expect(notice.innerText()).resolves.toContain('Die KI konnte für diese Datei keine Zuordnung vorschlagen');
    await expect(page.getByRole('combobox', { name: 'Email' }).inputValue()).resolves.toBe('E-mail');
    await screenshot(page, '15-ai-suggestion-notice');
    expect(vendor.requests).toHaveLength(1);
    await page.context().close();
  });
});
