/// <reference lib="dom" />
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import { axeViolations, holdRequests, launchBrowser, screenshot } from '../support/browser';
import { inviteByOperator, PASSWORD } from '../support/console-client';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import { WebhookReceiver } from '../support/webhook-receiver';
import { ADMIN_TOKEN, call, reviewApi, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * The customer console in a real browser (Debian's Chromium through playwright-core), as a new
 * customer's people use it: by the accessible names of what they see, by keyboard where it
 * matters, at phone width and on a desktop, in light and dark, with axe-core on every page.
 */

// A receiver's failures are made by the receiver ('error'), not by the timeout: a busy machine may stall half a second.
const FAST = { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_RETRY_DELAYS_MS: '60', WEBHOOK_MAX_ATTEMPTS: '2' };
const PAGES = ['runs', 'schemas', 'providers', 'webhook', 'api-keys', 'usage', 'members', 'audit', 'account'];

describe('customer console in Chromium', () => {
  let svc: Service;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let vendor: FakeVendor;
  let ownerPassword = PASSWORD;
  let schemaId: string;
  let runId: string;
  let orgId: string;
  let ownerEmail: string;
  let owner: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    vendor = new FakeVendor();
    await vendor.start();
    svc = await startService(FAST);
    browser = await launchBrowser();
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Acme Imports' } });
    orgId = org.body.id;
    ownerEmail = 'olivia@acme.example';
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // A step that cannot happen fails within the test's time, naming what it waited for.
    owner.setDefaultTimeout(10_000);
    page = await owner.newPage();
  }, 60_000);

  // A test that fails while it answers the page's questions leaves no answerer behind for the next test's questions.
  afterEach(() => void page?.removeAllListeners('dialog'));

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.stop();
    await vendor?.stop();
  });

  const goto = async (p: Page, path: string) => {
    await p.goto(`${svc.baseUrl}${path}`);
    await p.getByRole('heading', { level: 1 }).waitFor();
  };
  const status = (p: Page) => p.getByRole('status');
  /**
   * Waits for the focus to reach the element with this tag and text (a list is drawn again after the
   * API's answer), then says where it is: on the page's body, the keyboard's place would be lost.
   */
  const focusReaches = async (p: Page, tag: string, text: string) => {
    const at = () =>
      p.evaluate(() => {
        const el = document.activeElement;
        return { tag: el?.tagName, text: el && el !== document.body ? el.textContent?.trim() : '' };
      });
    await p
      .waitForFunction(
        ([t, x]) => document.activeElement?.tagName === t && document.activeElement.textContent?.trim() === x,
        [tag, text] as const,
        { timeout: 5000 },
      )
      .catch(() => undefined);
    expect(await at()).toEqual({ tag, text });
  };
  const cookieHeader = async () => (await owner.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');

  it('serves one shell for every page path under a strict CSP; assets by content hash; an unknown API path stays a JSON 404', async () => {
    for (const path of [
      '/console',
      '/console/runs',
      '/console/schemas/new',
      '/console/invitations/00000000-0000-0000-0000-000000000000?signature=x',
    ]) {
      const res = await fetch(`${svc.baseUrl}${path}`);
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      );
      expect(await res.text()).toContain('<div id="app">');
    }
    const html = await (await fetch(`${svc.baseUrl}/console`)).text();
    // The tab's icon is inline (the CSP's img-src allows data:): browsers ask for no /favicon.ico, a 404.
    expect(html).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]+">/);
    // The shared design tokens first, then the console's own style, then its script: each under its content hash.
    const assets = [...html.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.map((a) => a.replace(/\?v=[\w-]+$/, ''))).toEqual([
      '/console/assets/tokens.css',
      '/console/assets/console.css',
      '/console/assets/console.js',
    ]);
    for (const asset of assets) {
      const res = await fetch(`${svc.baseUrl}${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const etag = res.headers.get('etag')!;
      expect(asset).toContain(`?v=${etag.replace(/"/g, '')}`);
      expect((await fetch(`${svc.baseUrl}${asset}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
    expect((await fetch(`${svc.baseUrl}/console/assets/nope.js`)).status).toBe(404);
    for (const [method, path] of [
      ['GET', '/console/api/nope'],
      ['GET', '/console/api'],
      ['GET', '/console/api/nope/deeper?x=1'],
      ['POST', '/console/api/nope'],
    ]) {
      const res = await fetch(`${svc.baseUrl}${path}`, { method });
      const body = (await res.json()) as { error?: { code?: string } };
      expect({ method, path, status: res.status, type: res.headers.get('content-type'), code: body.error?.code }).toEqual({
        method,
        path,
        status: 404,
        type: 'application/json; charset=utf-8',
        code: 'not_found',
      });
    }
  });

  it('the owner opens the invitation, chooses a password and lands signed in', async () => {
    const invitation = await inviteByOperator(svc, orgId, ownerEmail);
    await page.goto(invitation.url);
    await page.getByRole('heading', { name: 'Join your organization' }).waitFor();
    // The heading is drawn at once; the sentence once the link's preview has come.
    await page.getByText('You are invited to Acme Imports as Owner.', { exact: false }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-invitation');
    await page.getByLabel('Your name').fill('Olivia Owner');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Password again').fill('short');
    await page.getByRole('button', { name: 'Join and sign in' }).click();
    // The server's rule, beside the field; the alert points there, not the API's "The given data was invalid."
    await page.getByText('The password must be at least 12 characters long.').waitFor();
    await page.getByRole('alert').filter({ hasText: 'That was refused: see the message beside the field.' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    // The network fails once: said so, and the form stays with what was typed, to send again (the link is not spent).
    await page.route('**/console/api/invitations/*/accept*', (route) => route.abort('connectionreset'), { times: 1 });
    await page.getByRole('button', { name: 'Join and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The service could not be reached.' }).waitFor();
    await expect(page.getByLabel('Your name').inputValue()).resolves.toBe('Olivia Owner');
    await expect(page.getByLabel('Password again').inputValue()).resolves.toBe(PASSWORD);
    // A new attempt clears what the last one was told: a typo in the second password is said beside it, and alone.
    await page.getByLabel('Password again').fill(`${PASSWORD}!`);
    await page.getByRole('button', { name: 'Join and sign in' }).click();
    await page.getByText('The two passwords are not the same. Type them again.').waitFor();
    await expect(page.getByRole('alert').filter({ hasText: 'could not be reached' }).count()).resolves.toBe(0);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Join and sign in' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/runs');
    await expect(status(page).textContent()).resolves.toContain('Welcome to Acme Imports');
    await expect(page.getByRole('link', { name: 'Runs' }).getAttribute('aria-current')).resolves.toBe('page');
    const cookies = await owner.cookies();
    expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    // The same link a second time: used.
    const again = await browser.newPage();
    await again.goto(invitation.url);
    await again.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
    // A link whose id was cut short when pasted: not valid, said so (it showed the sign-in form).
    await again.goto(invitation.url.replace(/(invitations\/[0-9a-f]{8})[0-9a-f-]+/, '$1'));
    await again
      .getByRole('alert')
      .filter({ hasText: /not valid/ })
      .waitFor();
    await again.close();

    // An invitation to another organization for the same address: refused when accepted, and the message that takes
    // the form's place has the keyboard (it had fallen to the page's body).
    const elsewhere = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Elsewhere Ltd' } });
    const taken = await inviteByOperator(svc, elsewhere.body.id, ownerEmail);
    const third = await browser.newPage();
    await third.goto(taken.url);
    await third.getByLabel('Your name').fill('Olivia Owner');
    await third.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await third.getByLabel('Password again').fill(PASSWORD);
    await third.getByRole('button', { name: 'Join and sign in' }).press('Enter');
    const refused = third.getByRole('alert').filter({ hasText: /\w/ });
    await refused.waitFor();
    await expect(refused.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await third.close();
  });

  it('asks before a schema form with changes not saved is left by a link; staying keeps what was typed', async () => {
    await goto(page, '/console/schemas');
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByRole('heading', { name: 'New schema', level: 1 }).waitFor();
    // Nothing typed yet: leaving asks nothing.
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (asked.length === 1 ? dialog.dismiss() : dialog.accept());
    });
    await page.getByRole('link', { name: 'Schemas', exact: true }).click();
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByLabel('Schema name').fill('Draft');
    // Typed, then a link: asked; staying (the first answer) keeps the form as it was.
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    expect(asked).toEqual(['This schema has changes that are not saved. Leave the page and lose them?']);
    await expect(page.getByRole('heading', { name: 'New schema', level: 1 }).count()).resolves.toBe(1);
    await expect(page.getByLabel('Schema name').inputValue()).resolves.toBe('Draft');
    // Asked again, and left (the second answer).
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    expect(asked).toHaveLength(2);
    page.removeAllListeners('dialog');
  });

  it("asks when the browser's Back leaves a schema form with changes not saved; staying keeps the form and its address", async () => {
    await goto(page, '/console/schemas');
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByRole('heading', { name: 'New schema', level: 1 }).waitFor();
    await page.getByLabel('Schema name').fill('Draft');
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (asked.length === 1 ? dialog.dismiss() : dialog.accept());
    });
    // The skip link moves within the page: nothing is asked.
    await page.getByRole('link', { name: 'Skip to the content' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#main');
    expect(asked).toEqual([]);
    // Back (from the skip link's #main, then from the form): it asks only when the form would be left. Staying keeps the
    // form as it was, under its own address (the next Back still leaves it).
    await page.goBack();
    await page.waitForFunction(() => location.hash === '');
    expect(asked).toEqual([]);
    await page.goBack();
    await page.waitForFunction(() => location.pathname === '/console/schemas/new');
    expect(asked).toEqual(['This schema has changes that are not saved. Leave the page and lose them?']);
    await expect(page.getByLabel('Schema name').inputValue()).resolves.toBe('Draft');
    // Staying kept the history as it was: Forward still reaches the skip link's entry, and Back the form's.
    await page.goForward();
    await page.waitForFunction(() => location.hash === '#main');
    await page.goBack();
    await page.waitForFunction(() => location.hash === '');
    expect(asked).toHaveLength(1);
    // Back again, and leave: the list it came from.
    await page.goBack();
    await page.getByRole('heading', { name: 'Schemas', level: 1 }).waitFor();
    expect(asked).toHaveLength(2);
    expect(new URL(page.url()).pathname).toBe('/console/schemas');
    page.removeAllListeners('dialog');
  });

  it('creates a schema with the form, edits it, and sees the API rules beside the fields', async () => {
    await goto(page, '/console/schemas');
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByRole('heading', { name: 'New schema', level: 1 }).waitFor();
    await page.getByLabel('Schema name').fill('People');
    const first = page.getByRole('group', { name: /^Field 1/ });
    await first.getByLabel('Field name').fill('email');
    await first.getByLabel('Data type').selectOption('email');
    await first.getByLabel('Description', { exact: true }).fill('E-mail address');
    await first.getByLabel('Required (an empty value is a problem)').check();
    await first.getByLabel('Trim spaces').check();
    // By keyboard: the new field's name takes the focus, and is typed at once.
    await page.getByRole('button', { name: 'Add a field' }).press('Enter');
    const second = page.getByRole('group', { name: /^Field 2/ });
    await expect(second.getByLabel('Field name').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type('9bad');
    await second.getByLabel('Description', { exact: true }).fill('Tier');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The schema was not saved: 1 part of the form needs a change; see the message beside it.' })
      .waitFor();
    await expect(second.locator('.field-error').first().textContent()).resolves.toContain('A field name must start with a letter');
    // Tied to the name's input: marked invalid, and described by the message.
    const badName = second.getByLabel('Field name');
    await expect(badName.getAttribute('aria-invalid')).resolves.toBe('true');
    // The focus is on it, the first field the answer names, not on the page's body.
    await expect(badName.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    const describedBy = (await badName.getAttribute('aria-describedby'))!.split(' ');
    const descriptions = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(descriptions.join(' ')).toContain('A field name must start with a letter');
    await second.getByLabel('Field name').fill('tier');
    await second.getByLabel('Data type').selectOption('enum');
    await second.getByLabel('Allowed values').fill('gold | Gold | de=Gold\nsilver | Silver');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page.getByRole('heading', { name: 'Schema People', level: 1 }).waitFor();
    await expect(status(page).textContent()).resolves.toContain('Schema People saved.');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-schema');
    schemaId = new URL(page.url()).pathname.split('/').pop()!;

    await page.getByLabel('Schema name').fill('Customers');
    await page.getByRole('button', { name: 'Save the schema' }).click();
    await expect(status(page).getByText('Schema Customers saved.').waitFor()).resolves.toBeUndefined();
    const stored = await call(`${svc.baseUrl}/console/api/schemas/${schemaId}`, {
      headers: { cookie: (await owner.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
    });
    expect(stored.body.data).toMatchObject({
      name: 'Customers',
      fields: {
        email: { data_type: 'email', is_required: true, transformations: { trim_whitespace: { enabled: true } } },
        tier: {
          data_type: 'enum',
          allowed_values: [
            { value: 'gold', label: 'Gold', labels: { de: 'Gold' } },
            { value: 'silver', label: 'Silver' },
          ],
        },
      },
    });
  });

  it('offers number formats, phone and country fields in the form, with the API messages beside them', async () => {
    await goto(page, '/console/schemas');
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByRole('heading', { name: 'New schema', level: 1 }).waitFor();
    await page.getByLabel('Schema name').fill('Orders');
    const price = page.getByRole('group', { name: /^Field 1/ });
    await price.getByLabel('Field name').fill('price');
    await price.getByLabel('Data type').selectOption('number');
    await price.getByLabel('Description', { exact: true }).fill('Price');
    await price.getByLabel('Locale').fill('not a locale');
    await price.getByLabel(/^Currency symbols/).check();
    await page.getByRole('button', { name: 'Add a field' }).click();
    const phone = page.getByRole('group', { name: /^Field 2/ });
    await phone.getByLabel('Field name').fill('phone');
    await phone.getByLabel('Data type').selectOption('phone');
    await phone.getByLabel('Description', { exact: true }).fill('Phone');
    await phone.getByLabel('Default region').fill('Germany');
    await page.getByRole('button', { name: 'Add a field' }).click();
    const country = page.getByRole('group', { name: /^Field 3/ });
    await country.getByLabel('Field name').fill('country');
    await country.getByLabel('Data type').selectOption('country');
    await country.getByLabel('Description', { exact: true }).fill('Country');
    await country.getByLabel('Country output').selectOption('alpha3');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The schema was not saved: 2 parts of the form need a change; see the messages beside them.' })
      .waitFor();
    await expect(price.locator('.field-error').first().textContent()).resolves.toContain('number_format.locale must be a locale');
    await expect(phone.locator('.field-error').first().textContent()).resolves.toContain('default_region must be an ISO 3166 alpha-2');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await price.getByLabel('Locale').fill('de-DE');
    await phone.getByLabel('Default region').fill('DE');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page.getByRole('heading', { name: 'Schema Orders', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const stored = await call(`${svc.baseUrl}/console/api/schemas/${id}`, {
      headers: { cookie: (await owner.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
    });
    expect(stored.body.data.fields).toMatchObject({
      price: { data_type: 'number', number_format: { locale: 'de-DE', currency: true } },
      phone: { data_type: 'phone', default_region: 'DE' },
      country: { data_type: 'country', country_format: 'alpha3' },
    });
    // The form reads them back as it wrote them.
    await page.reload();
    await expect(
      page
        .getByRole('group', { name: /^Field 1/ })
        .getByLabel('Locale')
        .inputValue(),
    ).resolves.toBe('de-DE');
    await expect(
      page
        .getByRole('group', { name: /^Field 3/ })
        .getByLabel('Country output')
        .inputValue(),
    ).resolves.toBe('alpha3');
  });

  it('sets a field pattern, unique, a date range, unique_with and a validation hook in the form; a catastrophic pattern is refused beside its input', async () => {
    await goto(page, '/console/schemas/new');
    await page.getByLabel('Schema name').fill('Checked');
    const code = page.getByRole('group', { name: /^Field 1/ });
    await code.getByLabel('Field name').fill('code');
    await code.getByLabel('Description', { exact: true }).fill('Product code');
    // The checks are folded away; the disclosure opens by keyboard.
    await expect(code.getByLabel('Pattern (regular expression)').isVisible()).resolves.toBe(false);
    await code.getByText('Checks: pattern, range, length, unique').focus();
    await page.keyboard.press('Enter');
    await code.getByLabel('Pattern (regular expression)').fill('(a+)+$');
    await code.getByLabel('Unique (a value may appear only once in the file)').check();
    // A check set and cleared again: the disclosure stays open around the input being edited, which keeps the focus.
    const fewest = code.getByLabel('Fewest characters');
    await fewest.fill('2');
    await fewest.press('Backspace');
    await code.getByLabel('Pattern (regular expression)').fill('');
    await code.getByLabel('Unique (a value may appear only once in the file)').uncheck();
    await fewest.click();
    await expect(fewest.isVisible()).resolves.toBe(true);
    await expect(fewest.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await code.getByLabel('Pattern (regular expression)').fill('(a+)+$');
    await code.getByLabel('Unique (a value may appear only once in the file)').check();
    await code.getByLabel('Most characters').fill('6');
    await fewest.fill('8');
    await page.getByRole('button', { name: 'Add a field' }).click();
    const due = page.getByRole('group', { name: /^Field 2/ });
    await due.getByLabel('Field name').fill('due');
    await due.getByLabel('Data type').selectOption('date');
    await due.getByLabel('Description', { exact: true }).fill('Due');
    await due.getByText('Checks: pattern, range, length, unique').click();
    await due.getByLabel('Earliest date').fill('2024-01-01');
    await due.getByLabel('Pattern (regular expression)').fill('(abc');
    // "Rewrite dates" without the pattern they are rewritten to: said at "To pattern", in the form's words.
    await due.getByLabel('Rewrite dates').check();
    // A set naming a field twice: its message in the form's words, with its line.
    await page.getByLabel('Unique together').fill('code, code');
    await page.getByLabel('Validation hook URL').fill('https://hooks.example.com/check');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    // How many places to look at: two fields (each however many of its options are wrong) and the sets unique together.
    await page
      .getByRole('alert')
      .filter({ hasText: 'The schema was not saved: 3 parts of the form need a change; see the messages beside them.' })
      .waitFor();
    // The API's message, tied to the pattern input (aria-invalid, aria-describedby).
    const pattern = code.getByLabel('Pattern (regular expression)');
    await expect(pattern.getAttribute('aria-invalid')).resolves.toBe('true');
    const describedBy = (await pattern.getAttribute('aria-describedby'))!;
    await expect(page.locator(`[id="${describedBy}"]`).textContent()).resolves.toContain('The pattern can backtrack catastrophically');
    // The API's member names and its parser's words, said in the form's: the lengths by their inputs' names, the pattern's
    // reason shortly.
    const messageOf = async (input: Locator) => page.locator(`[id="${await input.getAttribute('aria-describedby')}"]`).textContent();
    await expect(messageOf(fewest)).resolves.toBe(
      'The shortest length cannot be more than the longest length: make Fewest characters at most Most characters.',
    );
    await expect(messageOf(page.getByLabel('Unique together'))).resolves.toBe('Line 1: A field may be named only once in a set.');
    await expect(messageOf(due.getByLabel('Pattern (regular expression)'))).resolves.toBe(
      'The pattern is not a valid regular expression: a closing parenthesis ) is missing (at (abc).',
    );
    const rewriteTo = due.getByLabel('To pattern');
    await expect(rewriteTo.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(messageOf(rewriteTo)).resolves.toBe('Write the pattern the dates are rewritten to, such as yyyy-MM-dd.');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 800 });
        expect({ scheme, width, violations: await axeViolations(page) }).toEqual({ scheme, width, violations: [] });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect({ scheme, width, overflow }).toEqual({ scheme, width, overflow: 0 });
      }
      await screenshot(page, `console-schema-checks-${scheme}-360`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });

    await pattern.fill('^[A-Z]{2}-\\d{3}$');
    await fewest.fill('');
    await due.getByLabel('Pattern (regular expression)').fill('');
    await due.getByLabel('Rewrite dates').uncheck();
    await page.getByLabel('Unique together').fill('code, due');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page.getByRole('heading', { name: 'Schema Checked', level: 1 }).waitFor();
    const expected = {
      name: 'Checked',
      fields: {
        code: { data_type: 'string', pattern: '^[A-Z]{2}-\\d{3}$', unique: true, max_length: 6 },
        due: { data_type: 'date', min: '2024-01-01' },
      },
      unique_with: [['code', 'due']],
      validation_url: 'https://hooks.example.com/check',
    };
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const stored = async () =>
      (await call(`${svc.baseUrl}/console/api/schemas/${id}`, { headers: { cookie: await cookieHeader() } })).body.data;
    await expect(stored()).resolves.toMatchObject(expected);
    // Read back into the form (the checks open, as they are in use), shown in the JSON view, and kept by another save.
    await page.reload();
    await page.getByRole('group', { name: /^Field 2: due/ }).waitFor();
    await expect(
      page
        .getByRole('group', { name: /^Field 1/ })
        .getByLabel('Pattern (regular expression)')
        .inputValue(),
    ).resolves.toBe('^[A-Z]{2}-\\d{3}$');
    await expect(page.getByLabel('Validation hook URL').inputValue()).resolves.toBe('https://hooks.example.com/check');
    expect(JSON.parse(await page.getByLabel('Schema JSON').inputValue())).toMatchObject(expected);
    await page.getByRole('button', { name: 'Save the schema' }).click();
    await status(page).getByText('Schema Checked saved.').waitFor();
    await expect(stored()).resolves.toMatchObject(expected);
  });

  it('offers each transformation only where it suits the data type; one set where it does not stays, ticked, with a note', async () => {
    await goto(page, '/console/schemas/new');
    await page.getByLabel('Schema name').fill('Suited');
    // A saved schema with transformations on types they do not suit (the API takes them): none is dropped from the form.
    const fields = {
      qty: {
        description: 'Quantity',
        data_type: 'integer',
        is_required: false,
        transformations: { trim_whitespace: { enabled: true }, uppercase: { enabled: true } },
      },
      note: {
        description: 'Note',
        data_type: 'string',
        is_required: false,
        transformations: { date_format: { enabled: true, to: 'yyyy-MM-dd' } },
      },
      code: { description: 'Code', data_type: 'string', is_required: false },
    };
    await page.getByLabel('Schema JSON').fill(JSON.stringify({ name: 'Suited', fields }, null, 2));
    await page.getByRole('button', { name: 'Apply the JSON to the form' }).click();
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page.getByRole('heading', { name: 'Schema Suited', level: 1 }).waitFor();
    // Read back from the service, as a saved schema is opened.
    await page.reload();
    const qty = page.getByRole('group', { name: /^Field 1: qty/ });
    const note = page.getByRole('group', { name: /^Field 2: note/ });
    const code = page.getByRole('group', { name: /^Field 3: code/ });
    await qty.waitFor();
    const offered = (field: Locator) =>
      field
        .getByRole('group', { name: 'Transformations' })
        .getByRole('checkbox')
        .evaluateAll((boxes) => boxes.map((b) => document.querySelector(`label[for="${b.id}"]`)?.textContent));
    const noteOf = async (box: Locator) => {
      const ids = (await box.getAttribute('aria-describedby'))?.split(' ') ?? [];
      return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' ');
    };
    // A whole number: trimming offered, upper case kept because it is on, with the note; lower case and dates not offered.
    await expect(offered(qty)).resolves.toEqual(['Trim spaces', 'Upper case']);
    const qtyUpper = qty.getByLabel('Upper case');
    await expect(qtyUpper.isChecked()).resolves.toBe(true);
    await expect(noteOf(qtyUpper)).resolves.toBe(
      'Does not suit the data type “Whole number”: its values are read in any letter case, so a case change only alters how the text is written, and may spoil it.',
    );
    await expect(noteOf(qty.getByLabel('Trim spaces'))).resolves.toBe('');
    // Text: letter case offered without a note; "Rewrite dates" only because it is on, said not to suit.
    await expect(offered(note)).resolves.toEqual(['Trim spaces', 'Upper case', 'Lower case', 'Rewrite dates']);
    await expect(noteOf(note.getByLabel('Rewrite dates'))).resolves.toBe(
      'Does not suit the data type “Text (string)”: only Date and Date and time fields have dates to rewrite.',
    );
    await expect(noteOf(note.getByLabel('Upper case'))).resolves.toBe('');
    // Both cases on: the values end in lower case, applied last; said at both checkboxes (unticked before the save).
    await note.getByLabel('Upper case').check();
    await expect(noteOf(note.getByLabel('Upper case'))).resolves.toBe('');
    await note.getByLabel('Lower case').check();
    const bothCases = 'With both on, the values end in lower case: lower case is applied last.';
    await expect(noteOf(note.getByLabel('Upper case'))).resolves.toBe(bothCases);
    await expect(noteOf(note.getByLabel('Lower case'))).resolves.toBe(bothCases);
    await expect(noteOf(note.getByLabel('Trim spaces'))).resolves.toBe('');
    await expect(offered(code)).resolves.toEqual(['Trim spaces', 'Upper case', 'Lower case']);
    // A type changed under a transformation that is on: it stays, ticked, with the note; the others follow the type.
    await code.getByLabel('Lower case').check();
    await code.getByLabel('Data type').selectOption('date');
    await expect(offered(code)).resolves.toEqual(['Trim spaces', 'Lower case', 'Rewrite dates']);
    await expect(code.getByLabel('Lower case').isChecked()).resolves.toBe(true);
    await expect(noteOf(code.getByLabel('Lower case'))).resolves.toContain('Does not suit the data type “Date”');
    await expect(noteOf(code.getByLabel('Rewrite dates'))).resolves.toBe('');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-schema-unsuited-transformations');
    await note.getByLabel('Upper case').uncheck();
    await expect(noteOf(note.getByLabel('Lower case'))).resolves.toBe('');
    await note.getByLabel('Lower case').uncheck();
    // Unticked by keyboard: the checkbox stays where the focus is (it does not vanish under it), still with its note.
    await qtyUpper.focus();
    await page.keyboard.press('Space');
    await expect(qtyUpper.isChecked()).resolves.toBe(false);
    await expect(qtyUpper.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(noteOf(qtyUpper)).resolves.toContain('Does not suit the data type “Whole number”');
    await page.getByRole('button', { name: 'Save the schema' }).click();
    await status(page).getByText('Schema Suited saved.').waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const stored = (await call(`${svc.baseUrl}/console/api/schemas/${id}`, { headers: { cookie: await cookieHeader() } })).body.data;
    // What was unticked is off; what was left on is saved as it was, whatever the type.
    expect(stored.fields.qty.transformations).toEqual({ trim_whitespace: { enabled: true } });
    expect(stored.fields.note.transformations).toEqual(fields.note.transformations);
    expect(stored.fields.code).toMatchObject({ data_type: 'date', transformations: { lowercase: { enabled: true } } });
  });

  it('pastes a schema as JSON into the form, and tries a file against it without creating a run', async () => {
    await goto(page, `/console/schemas/${schemaId}`);
    // The form is drawn once the schema has loaded.
    await page.getByRole('group', { name: /^Field 2: tier/ }).waitFor();
    const json = page.getByLabel('Schema JSON');
    const current = JSON.parse(await json.inputValue()) as { name: string; fields: Record<string, unknown> };
    expect(Object.keys(current.fields)).toEqual(['email', 'tier']);
    current.fields.joined = {
      description: 'Joined on',
      data_type: 'date',
      is_required: false,
      format: 'dd/MM/yyyy',
      transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
    };
    await json.fill(JSON.stringify(current, null, 2));
    await page.getByRole('button', { name: 'Apply the JSON to the form' }).click();
    await status(page).getByText('The JSON is in the form. Save to keep it.').waitFor();
    // Applied, the button waits for another edit of the JSON, and keeps the focus (a disabled one would drop it to the body).
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Apply the JSON to the form');
    const third = page.getByRole('group', { name: /^Field 3: joined/ });
    await expect(third.getByLabel('Field name').inputValue()).resolves.toBe('joined');
    await expect(third.getByLabel('Data type').inputValue()).resolves.toBe('date');
    await expect(third.getByLabel('Rewrite dates').isChecked()).resolves.toBe(true);
    await expect(third.getByLabel('To pattern').inputValue()).resolves.toBe('yyyy-MM-dd');
    // Not JSON: said so, and the form is left as it was.
    await json.fill('{ "name": ');
    await page.getByRole('button', { name: 'Apply the JSON to the form' }).click();
    await page.getByRole('alert').filter({ hasText: 'That is not valid JSON' }).waitFor();
    await expect(page.getByRole('group', { name: /^Field \d/ }).count()).resolves.toBe(3);
    // The box is marked, described by the reason, and has the keyboard back to mend it.
    await expect(json.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(json.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(page.locator('#schema-json-error').innerText()).resolves.toContain('That is not valid JSON');
    // Members of the wrong type are refused, each named with its field, not read as something else ("yes" was false, a
    // list of values that is no list was none).
    const typed = JSON.parse(JSON.stringify(current)) as { fields: Record<string, Record<string, unknown>> };
    typed.fields.email.is_required = 'yes';
    typed.fields.tier.allowed_values = 'gold, silver';
    await json.fill(JSON.stringify(typed, null, 2));
    await page.getByRole('button', { name: 'Apply the JSON to the form' }).click();
    await page.getByRole('alert').filter({ hasText: 'The JSON was not applied: 2 members have values of the wrong type' }).waitFor();
    await expect(json.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(json.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    const why = (await page.locator(`[id="${await json.getAttribute('aria-describedby')}"]`).textContent())!;
    expect(why).toContain('Field “email”, is_required: must be true or false, not "yes".');
    expect(why).toContain('Field “tier”, allowed_values: must be a list of values');
    await expect(
      page
        .getByRole('group', { name: /^Field 1/ })
        .getByLabel('Required (an empty value is a problem)')
        .isChecked(),
    ).resolves.toBe(true);
    await expect(
      page
        .getByRole('group', { name: /^Field 2/ })
        .getByLabel('Allowed values')
        .inputValue(),
    ).resolves.toContain('gold');
    await expect(axeViolations(page)).resolves.toEqual([]);
    // Saved with edits still in the JSON box: what was saved is the form, and the message says the edits were not.
    await page.getByRole('button', { name: 'Save the schema' }).click();
    await status(page).getByText('Schema Customers saved as the form shows it. The edits in the JSON box were not applied').waitFor();
    // Two fields of one name would be one in the schema: refused before it is sent, beside both names.
    const fieldThree = page.getByRole('group', { name: /^Field 3/ });
    await fieldThree.getByLabel('Field name').fill('tier');
    await page.getByRole('button', { name: 'Save the schema' }).click();
    // The refusal says that the JSON box's edits are not in the form either: mending the form would not save them.
    await page
      .getByRole('alert')
      .filter({
        hasText:
          '2 parts of the form need a change; see the messages beside them. The edits in the JSON box were not applied to the form, so they were not sent either.',
      })
      .waitFor();
    await expect(page.getByText('Another field is also named tier. Give each field its own name.').count()).resolves.toBe(2);
    await fieldThree.getByLabel('Field name').fill('joined');

    await page.getByLabel('File (CSV, TSV, TXT or XLSX, up to 5 MB)').setInputFiles({
      name: 'people.csv',
      mimeType: 'text/csv',
      // Under a title, which is left out and said so.
      buffer: Buffer.from('People export\nEmail,Tier,Joined\nada@example.com,gold,10/12/2020\nnot-an-email,bronze,\n'),
    });
    await page.getByRole('button', { name: 'Try this file' }).click();
    await status(page).getByText('The file was read: 1 row has a problem.').waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Try this file');
    await page.getByText('Email · Tier · Joined').waitFor();
    await page.getByText('Left out as a title above them: People export').waitFor();
    const mapping = page.getByRole('table', { name: 'Suggested mapping' });
    await expect(
      mapping
        .getByRole('row', { name: /^email/ })
        .getByRole('cell')
        .first()
        .textContent(),
    ).resolves.toBe('Email');
    await expect(mapping.getByRole('row', { name: /^tier/ }).textContent()).resolves.toContain('Tier');
    // The problems in words: "not-an-email" is no e-mail address.
    await expect(mapping.getByRole('row', { name: /^email/ }).textContent()).resolves.toContain('1 value of the wrong type');
    await expect(mapping.getByRole('row', { name: /^joined/ }).textContent()).resolves.toContain('None');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-schema-try');
    // The mapping's caption is the heading of its table, at its start as "Headers found" is, on one line also at 360 px,
    // where the table is a stack of cards (it was centred, and there shrank to its longest word: "Suggested / mapping").
    const caption = () =>
      mapping.locator('caption').evaluate((el) => {
        const text = document.createRange();
        text.selectNodeContents(el);
        return {
          lines: new Set(Array.from(text.getClientRects(), (r) => Math.round(r.top))).size,
          textAtStart: Math.abs(text.getBoundingClientRect().left - el.closest('table')!.getBoundingClientRect().left) < 1,
        };
      });
    await expect(caption()).resolves.toEqual({ lines: 1, textAtStart: true });
    await page.setViewportSize({ width: 360, height: 780 });
    await expect(caption()).resolves.toEqual({ lines: 1, textAtStart: true });
    await screenshot(page, 'console-schema-try-360');
    await page.setViewportSize({ width: 1280, height: 900 });
    // Nothing was created: the organization still has no run.
    await goto(page, '/console/runs');
    await page.getByText('No run yet.', { exact: false }).waitFor();
    // An empty page in the address is page 1, not a load error (the API refuses `?page=`).
    await goto(page, '/console/runs?page=');
    await page.getByText('No run yet.', { exact: false }).waitFor();
  });

  it('issues a key shown once; it works on the public API until it is revoked', async () => {
    await goto(page, '/console/api-keys');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    // No message at the page's foot beside it (on a phone's screen it covered the key): the panel has the focus and says it.
    await expect(status(page).textContent()).resolves.toBe('');
    expect(key).toMatch(/^tsk_/);
    expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key })).status).toBe(200);
    await screenshot(page, 'console-api-key-issued');
    // The new key has the focus (read out at once); putting it away gives the focus back to "Issue a key".
    await page.waitForFunction(() => document.activeElement?.textContent === 'Your new key');
    // It is shown once: a link away asks first, and staying keeps it on the screen.
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Schemas', exact: true }).click();
    expect(asked).toEqual(['Your new key is not copied yet, and it is not shown again. Leave the page without it?']);
    await expect(page.locator('#new-key').textContent()).resolves.toBe(key);
    // Signing out asks too; staying keeps the key, and the session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(asked[asked.length - 1]).toBe('Your new key is not copied yet, and it is not shown again. Leave the page without it?');
    await expect(page.locator('#new-key').textContent()).resolves.toBe(key);
    // Issuing another in its place asks too; staying keeps it, and no key was issued.
    const keysBefore = (await call(`${svc.baseUrl}/console/api/api-keys`, { headers: { cookie: await cookieHeader() } })).body.data.length;
    await page.getByRole('button', { name: 'Issue a key' }).click();
    expect(asked[2]).toBe('Your new key is not copied yet, and it is not shown again. Issue another key in its place?');
    await expect(page.locator('#new-key').textContent()).resolves.toBe(key);
    expect((await call(`${svc.baseUrl}/console/api/api-keys`, { headers: { cookie: await cookieHeader() } })).body.data.length).toBe(
      keysBefore,
    );
    page.removeAllListeners('dialog');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.locator('#new-key').waitFor({ state: 'detached' });
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Issue a key');
    // Newest first: the new key's row, then the operator's key. Revoked by keyboard, the focus goes on to the next row's button.
    await page.getByRole('button', { name: `Revoke the key ${key.slice(4, 12)}` }).waitFor();
    const revokes = await page.getByRole('button', { name: /^Revoke the key/ }).allTextContents();
    expect(revokes[0]).toBe(`Revoke the key ${key.slice(4, 12)}`);
    await page.getByRole('button', { name: `Revoke the key ${key.slice(4, 12)}` }).press('Enter');
    const dialog = page.getByRole('dialog', { name: `Revoke the key ${key.slice(4, 12)}?` });
    await dialog.getByRole('button', { name: 'Revoke it' }).press('Enter');
    await status(page)
      .getByText(`The key ${key.slice(4, 12)} is revoked.`)
      .waitFor();
    expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key })).status).toBe(401);
    await focusReaches(page, 'BUTTON', revokes[1]);
  });

  it('issues a key with a name typed and sent by keyboard; the list, the revoke button and the audit log call it by its name', async () => {
    await goto(page, '/console/api-keys');
    const name = page.getByRole('textbox', { name: 'Name (optional)' });
    await expect(name.getAttribute('aria-describedby')).resolves.toBe('key-name-hint');
    // The API's reason for a refused name is tied to the field and read with it. The box cuts nothing short: a browser's
    // maxlength counts UTF-16 units, the API characters (an emoji is one), so the API alone judges the length.
    await name.fill('n'.repeat(101));
    await name.press('Enter');
    // Beside the field, and said at once (an alert).
    const refusal = 'The name field must not be greater than 100 characters.';
    await expect(page.locator('#key-name-error').textContent()).resolves.toBe(refusal);
    await page.getByRole('alert').getByText(refusal).waitFor();
    await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(name.getAttribute('aria-describedby')).resolves.toBe('key-name-hint key-name-error');
    await name.fill('Nightly export');
    await name.press('Enter');
    await page.waitForFunction(() => document.activeElement?.textContent === 'Your new key “Nightly export”');
    const key = (await page.locator('#new-key').textContent())!.trim();
    const prefix = key.slice(4, 12);
    await expect(name.inputValue()).resolves.toBe('');
    await expect(name.getAttribute('aria-invalid')).resolves.toBeNull();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('#new-key').waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: new RegExp(`^Nightly export tsk_${prefix}`) });
    await row.waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-api-key-named');
    await row.getByRole('button', { name: `Revoke the key “Nightly export” (${prefix})` }).press('Enter');
    await page
      .getByRole('dialog', { name: `Revoke the key “Nightly export” (${prefix})?` })
      .getByRole('button', { name: 'Revoke it' })
      .press('Enter');
    await status(page).getByText(`The key “Nightly export” (${prefix}) is revoked.`).waitFor();
    await goto(page, '/console/audit');
    await page.getByText(`revoked the API key “Nightly export” (${prefix})`).waitFor();
    await page.getByText(`issued the API key “Nightly export” (${prefix})`).waitFor();

    // A key revoked while it is still shown is put away: it is no longer one to copy.
    await goto(page, '/console/api-keys');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const shown = (await page.locator('#new-key').textContent())!.trim();
    await page.getByRole('button', { name: `Revoke the key ${shown.slice(4, 12)}` }).click();
    await page
      .getByRole('dialog', { name: /^Revoke the key/ })
      .getByRole('button', { name: 'Revoke it' })
      .click();
    await status(page)
      .getByText(`The key ${shown.slice(4, 12)} is revoked.`)
      .waitFor();
    await page.locator('#new-key').waitFor({ state: 'detached' });
  });

  it('lets the page be left without asking once the new key is copied', async () => {
    await owner.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
    await goto(page, '/console/api-keys');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await status(page).getByText('Copied to the clipboard.').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key);
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Schemas', exact: true }).click();
    await page.getByRole('heading', { name: 'Schemas', level: 1 }).waitFor();
    expect(asked).toEqual([]);
    page.removeAllListeners('dialog');
    await owner.clearPermissions();
  });

  it("asks when the browser's Forward leaves a new key not yet copied; staying keeps the key and the way forward", async () => {
    await goto(page, '/console/api-keys');
    await page.getByRole('link', { name: 'Schemas', exact: true }).click();
    await page.getByRole('heading', { name: 'Schemas', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (asked.length === 1 ? dialog.dismiss() : dialog.accept());
    });
    await page.goForward();
    await page.waitForFunction(() => location.pathname === '/console/api-keys');
    expect(asked).toEqual(['Your new key is not copied yet, and it is not shown again. Leave the page without it?']);
    await expect(page.locator('#new-key').textContent()).resolves.toBe(key);
    // The way forward is still there: Forward again, and leave.
    await page.goForward();
    await page.getByRole('heading', { name: 'Schemas', level: 1 }).waitFor();
    expect(asked).toHaveLength(2);
  });

  it('does an action once however often its button is pressed while it runs, and says why an action failed', async () => {
    await goto(page, '/console/api-keys');
    const keysNow = async () =>
      (await call(`${svc.baseUrl}/console/api/api-keys`, { headers: { cookie: await cookieHeader() } })).body.data.length as number;
    const before = await keysNow();
    // The answer held back a moment, as on a slow network: the second and third presses come while the first runs.
    const issuing = await holdRequests(page, '**/console/api/api-keys', 'POST');
    const issue = page.getByRole('button', { name: 'Issue a key' });
    await issue.click();
    await expect(issue.getAttribute('aria-disabled')).resolves.toBe('true');
    await issue.press('Enter');
    await issue.click({ force: true });
    issuing.release();
    await page.locator('#new-key').waitFor();
    await expect(issue.getAttribute('aria-disabled')).resolves.toBeNull();
    await issuing.stop();
    expect(await keysNow()).toBe(before + 1);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    // A failure without a form says the API's reasons, and a server error the request id its message asks for.
    await page.route('**/console/api/api-keys', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({
              error: { code: 'internal_error', type: 'server', message: 'An unexpected error occurred.', request_id: 'req-test-7' },
            }),
          })
        : route.continue(),
    );
    await issue.click();
    await page.getByRole('alert').getByText('An unexpected error occurred. (request_id: req-test-7)').waitFor();
    await page.unroute('**/console/api/api-keys');
    await goto(page, '/console/webhook');
    await page.route('**/console/api/webhook/test', (route) =>
      route.fulfill({
        status: 422,
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'validation_failed',
            type: 'validation',
            message: 'The given data was invalid.',
            request_id: 'req-test-8',
            fields: { url: ['No webhook URL is set: save one in the webhook settings first.'] },
          },
        }),
      }),
    );
    await page.getByRole('button', { name: 'Send a test event' }).click();
    // Refused for the field: its reason beside it, as a refused save's.
    await page.locator('#webhook-url-error', { hasText: 'No webhook URL is set: save one in the webhook settings first.' }).waitFor();
    await page.unroute('**/console/api/webhook/test');
  });

  it('adds an AI provider with a write-only key, tests the connection, edits it keeping the key, and deletes it', async () => {
    await goto(page, '/console/providers');
    await page.getByText('No provider yet.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Add a provider' }).press('Enter');
    // The form opens with its first field focused, and gives the focus back to the button that opened it.
    await page.waitForFunction(() => document.activeElement?.id === 'p-name');
    await page.getByLabel('Name').fill('OpenAI main');
    await page.getByLabel('Vendor', { exact: true }).selectOption('openai');
    await page.getByLabel('Model', { exact: true }).fill('gpt-4o-mini');
    await page.getByLabel('Vendor API key').fill(OPENAI_KEY);
    await page.getByLabel('Base URL (optional)').fill(`${vendor.baseUrl}/v1`);
    // A double click saves it once.
    await page.getByRole('button', { name: 'Save the provider' }).dblclick();
    await status(page).getByText('Provider OpenAI main saved.').waitFor();
    await focusReaches(page, 'BUTTON', 'Add a provider');
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'OpenAI main' }) });
    await card.getByText('stored, never shown').waitFor();
    const stored = () => page.evaluate(async () => (await (await fetch('/console/api/providers')).json()).data.length as number);
    await expect(stored()).resolves.toBe(1);
    // Masked: the key is nowhere in the page.
    await expect(page.content()).resolves.not.toContain(OPENAI_KEY);
    await card.getByRole('button', { name: 'Test the connection to OpenAI main' }).click();
    await status(page).getByText('OpenAI main answered in', { exact: false }).waitFor();
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-providers');

    // Edited without a key: the stored one is kept (the connection still works with it).
    await card.getByRole('button', { name: 'Edit OpenAI main' }).click();
    await expect(page.getByLabel('Vendor API key').inputValue()).resolves.toBe('');
    await page.getByText('Leave empty to keep the stored key.').waitFor();
    await page.getByLabel('Model label (optional)').fill('GPT-4o mini');
    await page.getByRole('button', { name: 'Save the provider' }).click();
    await status(page).getByText('Provider OpenAI main saved.').waitFor();
    await card.getByText('GPT-4o mini').waitFor();
    await focusReaches(page, 'BUTTON', 'Edit OpenAI main');
    const calls = vendor.requests.length;
    await card.getByRole('button', { name: 'Test the connection to OpenAI main' }).click();
    await status(page).getByText('OpenAI main answered in', { exact: false }).waitFor();
    expect(vendor.requests.length).toBe(calls + 1);
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);

    // A wrong field is answered beside it.
    await page.getByRole('button', { name: 'Add a provider' }).click();
    await page.getByLabel('Model', { exact: true }).fill('gpt-4o');
    await page.getByRole('button', { name: 'Save the provider' }).click();
    await page.locator('#p-name-error').waitFor();
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');
    // The keyboard goes to the first field named, as in every other form (it stayed on Save).
    await expect(page.getByLabel('Name').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    // What was typed stays, to be mended rather than typed again.
    await expect(page.getByLabel('Model', { exact: true }).inputValue()).resolves.toBe('gpt-4o');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await card.getByRole('button', { name: 'Delete OpenAI main' }).press('Enter');
    await page.getByRole('dialog', { name: 'Delete the provider OpenAI main?' }).getByRole('button', { name: 'Delete it' }).press('Enter');
    await status(page).getByText('Provider OpenAI main deleted.').waitFor();
    await page.getByText('No provider yet.', { exact: false }).waitFor();
    // No other provider's button to go on to: the focus goes to the list's heading, the page's.
    await focusReaches(page, 'H1', 'AI providers');
  });

  it('reveals and rotates the secret by keyboard alone; the next webhook carries the new one', async () => {
    await goto(page, '/console/webhook');
    // A refused URL stays in the field beside its error, to be mended rather than typed again.
    await page.getByLabel('Webhook URL').fill('not a url');
    await page.getByRole('button', { name: 'Save the URL' }).click();
    await page.locator('#webhook-url-error').waitFor();
    await expect(page.getByLabel('Webhook URL').inputValue()).resolves.toBe('not a url');
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks?case=browser`);
    await page.getByRole('button', { name: 'Save the URL' }).click();
    await status(page).getByText('The default webhook URL is saved.').waitFor();

    // From here on, the keyboard alone: Tab to "Reveal the secret" (from the top of the page), Enter.
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    const tabTo = async (name: string) => {
      for (let i = 0; i < 15 && (await focused()) !== name; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(name);
    };
    await page.getByRole('heading', { name: 'Webhook', level: 1 }).focus();
    await tabTo('Reveal the secret');
    await page.keyboard.press('Enter');
    const shown = page.locator('code.secret');
    await page.locator('code.secret', { hasText: 'whsec_' }).waitFor();
    const before = (await shown.textContent())!;
    // The same button now hides it, and keeps the focus.
    await expect(focused()).resolves.toBe('Hide the secret');
    // Tab on to the rotate button, open the confirmation, which says what changes, and confirm with the keyboard.
    await tabTo('Rotate the secret');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rotate the webhook secret?' });
    await dialog.getByText('the old one stops working at once', { exact: false }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Rotate it');
    await page.keyboard.press('Enter');
    await status(page).getByText('The secret was rotated.', { exact: false }).waitFor();
    await page.locator('code.secret', { hasNotText: before }).waitFor();
    // The dialog gave the focus back to what opened it.
    await expect(focused()).resolves.toBe('Rotate the secret');
    const after = (await shown.textContent())!;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-webhook');

    await page.getByRole('button', { name: 'Send a test event' }).click();
    // The URL is set apart from the words around it (U+2068/U+2069), as every value the catalog puts in a sentence.
    await status(page)
      .getByText(/The test event to \u2068?http:\/\/127\.0\.0\.1:\d+\/hooks\?case=browser\u2069? was delivered/)
      .waitFor();
    const test = receiver.received.filter((r) => r.path.includes('case=browser')).pop()!;
    expect(test.headers['x-service-webhook-secret']).toBe(after);
    // A URL typed and not saved is the one tested, and the message says it is not saved; the saved one stays.
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks?case=unsaved`);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await status(page).getByText('That URL is not saved yet', { exact: false }).waitFor();
    expect(receiver.received.some((r) => r.path.includes('case=unsaved'))).toBe(true);
    await expect(page.evaluate(async () => (await (await fetch('/console/api/webhook')).json()).data.url as string)).resolves.toBe(
      `${receiver.url}/hooks?case=browser`,
    );
    // A URL the test refuses is marked in its field, as a refused save is.
    await page.getByLabel('Webhook URL').fill('not a url');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.locator('#webhook-url-error').waitFor();
    await expect(page.getByLabel('Webhook URL').getAttribute('aria-invalid')).resolves.toBe('true');
  });

  it('finds a failed delivery and sends it again; the receiver gets it', async () => {
    const issued = await page.evaluate(async () => {
      const session = await (await fetch('/console/api/session')).json();
      const res = await fetch('/console/api/api-keys', { method: 'POST', headers: { 'x-csrf-token': session.data.csrf_token } });
      return (await res.json()).data.api_key as string;
    });
    const schemas = await call(`${svc.baseUrl}/v1/schemas`, { token: issued });
    receiver.fallback = 'error';
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: issued,
      body: { schema_id: schemas.body.data[0].id, filename: 'customers.csv' },
    });
    runId = created.body.id as string;
    // The second row has a cell more than the header: the history says so when it says the file was read.
    await upload(created.body, 'Email,Tier\nada@example.com,gold\nbob@example.com,silver,VIP\n');
    const ready = await waitForRun(svc, issued, runId, (r) => r.review_state === 'active');
    // The reviewer fixes, and takes one fix back: the run's history says of which field and what kind of fix.
    const review = reviewApi(ready.review_url);
    const field = Object.keys(schemas.body.data[0].fields)[0];
    // A row left out and put back: the history says which row, and the output still has both.
    const rowFix = (fix: object) => call(review.at('fixes'), { method: 'POST', body: { fix } });
    expect((await rowFix({ kind: 'leave_out', row: 2 })).status).toBe(200);
    expect((await rowFix({ kind: 'put_back', row: 2 })).status).toBe(200);
    expect((await review.fix(field, { kind: 'normalise', normaliser: 'trim' })).status).toBe(200);
    expect((await review.fix(field, { kind: 'replace', find: 'nobody', replace: 'x', whole_value: true })).status).toBe(200);
    expect((await review.undo()).status).toBe(200);
    await review.approve();
    await waitForRun(svc, issued, runId, (r) => r.notification_status === 'failed');
    receiver.fallback = 'ok';

    await goto(page, '/console/webhook');
    await page.getByLabel('Outcome').selectOption('failed');
    await page
      .getByRole('link', { name: runId.slice(0, 8) })
      .first()
      .click();
    await page.getByRole('heading', { name: `Run ${runId.slice(0, 8)}`, level: 1 }).waitFor();
    // In words, and in the right number ("1 row", "2 rows").
    await page.getByRole('listitem').filter({ hasText: 'Created (File upload)' }).waitFor();
    // Which file the run is of, beside its id.
    await expect(page.locator('dl.facts dt', { hasText: 'File' }).locator('xpath=following-sibling::dd[1]').innerText()).resolves.toBe(
      'customers.csv',
    );
    await page.getByRole('listitem').filter({ hasText: 'File read: 2 rows (1 row has more cells than the first row)' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Output produced: 2 rows as json' }).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: `The reviewer fixed ${field}: spaces trimmed` })
      .waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: `The reviewer undid a fix of ${field}: find and replace` })
      .waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Row 2 left out of the records by the reviewer' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Row 2 put back by the reviewer' }).waitFor();
    await page.getByRole('link', { name: 'Download the output' }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-run-failed-delivery');
    const before = receiver.for(runId).length;
    // What the status says on the way, as it says it: the new attempt is made within moments, and its own
    // message ("Attempt 3 … was made") may take the place of "will be sent again" before a look would find it.
    await page.evaluate(() => {
      const said: string[] = [];
      (window as unknown as { said: string[] }).said = said;
      const region = document.querySelector('[role="status"]')!;
      new MutationObserver(() => said.push((region as HTMLElement).innerText)).observe(region, {
        childList: true,
        subtree: true,
        characterData: true,
      });
    });
    // By keyboard: the button moves to the re-sent attempt's row once it is listed, and the focus with it.
    await page
      .getByRole('button', { name: /^Send again/ })
      .first()
      .focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() =>
      (window as unknown as { said: string[] }).said.some((text) => text.includes('will be sent again in a moment')),
    );
    for (const deadline = Date.now() + 10_000; receiver.for(runId).length === before;) {
      if (Date.now() > deadline) throw new Error('the re-sent delivery never arrived');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(receiver.for(runId).pop()!.headers['x-service-id']).toBe(runId);
    await page
      .getByRole('cell', { name: /Delivered/ })
      .first()
      .waitFor({ timeout: 10_000 });
    const resendAgain = page
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: /Delivered/ }) })
      .getByRole('button', { name: /^Send again/ });
    await expect(resendAgain.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
  });

  it('does not offer "Send again" while another attempt is planned, and says when it is due', async () => {
    // The API says of each attempt when its delivery's next attempt is planned: none, once it has settled.
    const settled = await call(`${svc.baseUrl}/console/api/runs/${runId}/deliveries`, { headers: { cookie: await cookieHeader() } });
    expect(settled.body.data.length).toBeGreaterThan(0);
    for (const attempt of settled.body.data) expect(attempt).toHaveProperty('delivery_next_attempt_at', null);
    // A retry planned (the notifier here retries at once, so the answer is changed on its way to the page).
    const due = new Date(Date.now() + 10 * 60_000).toISOString();
    const list = (url: URL) => url.pathname === `/console/api/runs/${runId}/deliveries`;
    await page.route(list, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: Array<{ delivery_next_attempt_at: string | null }> };
      for (const attempt of body.data) attempt.delivery_next_attempt_at = due;
      await route.fulfill({ response, json: body });
    });
    const resends: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === 'POST' && request.url().includes('/resend')) resends.push(request.url());
    };
    page.on('request', onRequest);
    await goto(page, `/console/runs/${runId}`);
    const button = page.getByRole('button', { name: /^Send again/ }).first();
    await expect(button.getAttribute('aria-disabled')).resolves.toBe('true');
    const note = (await button.getAttribute('aria-describedby'))!;
    await expect(page.locator(`[id="${note}"]`).textContent()).resolves.toContain('Another attempt is planned for');
    // Pressed anyway: nothing is sent (the API would refuse it with 409), and the focus stays on it.
    await button.press('Enter');
    await expect(button.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await page.unroute(list);
    page.off('request', onRequest);
    expect(resends).toEqual([]);
    // Planned for moments from now: once its time has passed the page looks again by itself, and offers it.
    const soon = new Date(Date.now() + 5000).toISOString();
    await page.route(
      list,
      async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { data: Array<{ delivery_next_attempt_at: string | null }> };
        for (const attempt of body.data) attempt.delivery_next_attempt_at = soon;
        await route.fulfill({ response, json: body });
      },
      { times: 1 },
    );
    await page.reload();
    await expect(button.getAttribute('aria-disabled')).resolves.toBe('true');
    await page.waitForFunction(
      () => {
        const el = Array.from(document.querySelectorAll('button')).find((b) => b.textContent?.startsWith('Send again'));
        return el !== undefined && !el.hasAttribute('aria-disabled');
      },
      undefined,
      { timeout: 10_000 },
    );
    // Settled again: offered again.
    await page.reload();
    await page
      .getByRole('button', { name: /^Send again/ })
      .first()
      .waitFor();
    await expect(
      page
        .getByRole('button', { name: /^Send again/ })
        .first()
        .getAttribute('aria-disabled'),
    ).resolves.toBeNull();
  });

  it('keeps the keyboard on "Send again" when the planned attempt it waits for is made: the button moves to that attempt\'s row, and the focus with it', async () => {
    const list = (url: URL) => url.pathname === `/console/api/runs/${runId}/deliveries`;
    const listed = await call(`${svc.baseUrl}/console/api/runs/${runId}/deliveries?page=1&per_page=10`, {
      headers: { cookie: await cookieHeader() },
    });
    // The newest attempt stands for the planned one: until it is due the page is told it is planned and not yet made
    // (the notifier here retries within moments, too soon for a person to be on its button).
    const [made] = listed.body.data as Array<{ id: string; delivery_id: string; attempt: number; event: string }>;
    const due = Date.now() + 4000;
    await page.route(list, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as {
        data: Array<{ id: string; delivery_id: string; delivery_next_attempt_at: string | null; delivery_newest: boolean }>;
        meta: { total: number };
      };
      if (Date.now() < due) {
        body.data = body.data.filter((a) => a.id !== made.id);
        body.meta.total -= 1;
        for (const a of body.data) if (a.delivery_id === made.delivery_id) a.delivery_next_attempt_at = new Date(due).toISOString();
        // Not yet made, the attempt before it is the delivery's newest.
        const before = body.data.find((a) => a.delivery_id === made.delivery_id);
        if (before) before.delivery_newest = true;
      }
      await route.fulfill({ response, json: body });
    });
    try {
      await goto(page, `/console/runs/${runId}`);
      const button = page.locator(`[id="resend-${made.delivery_id}"]`);
      await expect(button.getAttribute('aria-disabled')).resolves.toBe('true');
      const rowOf = (el: Element) => el.closest('tr')?.querySelector('td')?.textContent ?? '';
      await expect(button.evaluate(rowOf)).resolves.not.toContain(`Attempt ${made.attempt}`);
      // Pressed by keyboard while the attempt is planned: nothing is sent, the focus stays; the page looks again once it is due.
      await button.focus();
      await page.keyboard.press('Enter');
      await page
        .getByRole('row')
        .filter({ hasText: `Attempt ${made.attempt}` })
        .getByRole('button', { name: /^Send again/ })
        .waitFor({ timeout: 10_000 });
      const focused = () =>
        page.evaluate(() => {
          const el = document.activeElement;
          return { id: el === document.body ? 'body' : el?.id, row: el?.closest('tr')?.querySelector('td')?.textContent ?? '' };
        });
      await page
        .waitForFunction((id) => document.activeElement?.id === id, `resend-${made.delivery_id}`, { timeout: 3000 })
        .catch(() => undefined);
      const at = await focused();
      expect(at.id).toBe(`resend-${made.delivery_id}`);
      expect(at.row).toContain(`Attempt ${made.attempt}`);
      // Said, as nothing else tells why the keyboard moved: the attempt made, and how it went.
      await status(page).getByText(`Attempt ${made.attempt} of ${made.event} was made: `, { exact: false }).waitFor({ timeout: 3000 });
      await expect(axeViolations(page)).resolves.toEqual([]);
      await screenshot(page, 'console-run-planned-attempt-made');
    } finally {
      await page.unroute(list);
    }
  });

  it('says so when the planned attempt is made on another page of the deliveries, and the keyboard goes to their heading; older attempts offer no "Send again"', async () => {
    type Listed = {
      id: string;
      delivery_id: string;
      attempt: number;
      event: string;
      sent_at: string;
      delivery_next_attempt_at: string | null;
      delivery_newest: boolean;
    };
    const listed = await call(`${svc.baseUrl}/console/api/runs/${runId}/deliveries?page=1&per_page=100`, {
      headers: { cookie: await cookieHeader() },
    });
    // The run's delivery: its newest attempt stands for the planned one, made once it is due (as above).
    const [made, ...before] = listed.body.data as Listed[];
    expect(before.length).toBeGreaterThan(0);
    expect([made.delivery_newest, ...before.map((a) => a.delivery_newest)]).toEqual([true, ...before.map(() => false)]);
    // A run owes one webhook per event, so the answer is given a second delivery's attempt, sent between the made attempt
    // and the one before it, and one attempt a page: the delivery's newest is on page 2 until the planned one is made.
    const other: Listed = {
      ...made,
      id: '00000000-0000-4000-8000-00000000d0e1:1',
      delivery_id: '00000000-0000-4000-8000-00000000d0e1',
      attempt: 1,
      event: 'transformation.failed',
      sent_at: new Date((Date.parse(made.sent_at) + Date.parse(before[0].sent_at)) / 2).toISOString(),
    };
    const due = Date.now() + 4000;
    const list = (url: URL) => url.pathname === `/console/api/runs/${runId}/deliveries`;
    await page.route(list, async (route) => {
      const asked = Number(new URL(route.request().url()).searchParams.get('page') ?? '1');
      const attempts =
        Date.now() < due
          ? [other, ...before.map((a, i) => ({ ...a, delivery_newest: i === 0, delivery_next_attempt_at: new Date(due).toISOString() }))]
          : [made, other, ...before];
      const meta = { current_page: asked, last_page: attempts.length, total: attempts.length, per_page: 1, from: asked, to: asked };
      await route.fulfill({ json: { data: attempts.slice(asked - 1, asked), meta } });
    });
    try {
      await goto(page, `/console/runs/${runId}`);
      const pages = page.getByRole('navigation', { name: 'Pages of deliveries' });
      await pages.getByRole('button', { name: 'Next page' }).click();
      await pages.getByText(`Page 2 of ${1 + before.length} `, { exact: false }).waitFor();
      // On page 2, the delivery's newest attempt, its next one planned: the keyboard on its "Send again".
      const button = page.locator(`[id="resend-${made.delivery_id}"]`);
      await expect(button.getAttribute('aria-disabled')).resolves.toBe('true');
      await button.focus();
      // Once due, the page looks again: the attempt made is on page 1, and "Send again" with it. The move is said, and
      // the keyboard goes to the deliveries' heading rather than to the page's body.
      await status(page)
        .getByText('Another attempt of this delivery was made. “Send again” is on its newest attempt, on another page of the list.')
        .waitFor({ timeout: 10_000 });
      await focusReaches(page, 'H2', 'Webhook deliveries');
      await expect(button.count()).resolves.toBe(0);
      await expect(axeViolations(page)).resolves.toEqual([]);
      // The page after holds an older attempt of it: no "Send again" there (its newest attempt is on page 1).
      await pages.getByRole('button', { name: 'Next page' }).click();
      await pages.getByText(`Page 3 of ${2 + before.length} `, { exact: false }).waitFor();
      await page
        .getByRole('row')
        .filter({ hasText: `Attempt ${before[0].attempt}` })
        .waitFor();
      await expect(page.getByRole('button', { name: /^Send again/ }).count()).resolves.toBe(0);
      // Page 1: on the attempt made.
      await goto(page, `/console/runs/${runId}`);
      await page
        .getByRole('row')
        .filter({ hasText: `Attempt ${made.attempt}` })
        .locator(`[id="resend-${made.delivery_id}"]`)
        .waitFor();
    } finally {
      await page.unroute(list);
    }
  });

  it('finds runs by status, file name and date; the filters stay in the address', async () => {
    await goto(page, '/console/runs');
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    await expect(page.getByRole('table').getByRole('row').count()).resolves.toBe(2); // the header and the one run
    // A filtered list that cannot be read: the error, not the unfiltered list under it as if it were the filtered one.
    await page.route('**/console/api/runs?*', (route) => route.fulfill({ status: 503, body: '' }), { times: 1 });
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Show runs' }).click();
    await page.getByRole('button', { name: 'Try again' }).waitFor();
    await expect(page.getByRole('cell', { name: 'customers.csv' }).count()).resolves.toBe(0);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Show runs' }).click();
    await page.locator('#main').getByText('No run matches these filters.', { exact: false }).waitFor();
    // The list that answers is said in the status too: the focus stays on the button, which says nothing of it.
    await status(page).getByText('No run matches these filters.', { exact: false }).waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Show runs' }).click();
    await status(page).getByText('1 run, newest first').waitFor();
    // An address edited by hand: what the form cannot show is not sent either, so the list is the one the form describes.
    await goto(page, '/console/runs?status=nope&created_after=2024-13-45&created_before=2026-11-31&page=x');
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('');
    await expect(page.getByText('The given data was invalid.').count()).resolves.toBe(0);
    // A run that is not the organization's (or none): one page that says so, its heading focused, nothing to retry.
    await goto(page, '/console/runs/4a5abbf9-0000-4000-8000-000000000000');
    await page.getByRole('heading', { name: 'Run not found', level: 1 }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Run not found');
    await expect(page.getByText('4a5abbf9').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Try again' }).count()).resolves.toBe(0);
    await goto(page, '/console/nope');
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    await goto(page, '/console/runs?status=failed');
    await page.getByText('No run matches these filters.', { exact: false }).waitFor();
    // The choices say where a run stands, as its badge does: "Completed (output ready)" finds the approved run,
    // "In review" does not (a run waiting for its reviewer is `completed` too, to the API's status alone).
    await goto(page, '/console/runs?status=completed');
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('completed');
    await page.getByLabel('Status').selectOption({ label: 'In review' });
    await page.getByRole('button', { name: 'Show runs' }).click();
    await page.waitForURL((url) => url.searchParams.get('status') === 'in_review');
    await page.locator('#main').getByText('No run matches these filters.', { exact: false }).waitFor();
    // A page past the last (an old bookmark) says so, not "No run yet", and leads to the first page.
    await goto(page, '/console/runs?page=999');
    await page.getByText('No run on this page: the list has 1 page.').waitFor();
    await expect(page.getByText('No run yet.', { exact: false }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Go to the first page' }).press('Enter');
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    // The list arriving while the person types does not put the address's values back over theirs.
    const listing = await holdRequests(page, '**/console/api/runs?*');
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await page.waitForURL((url) => url.search === '');
    await page.getByLabel('File name or metadata').fill('customers');
    listing.release();
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    await listing.stop();
    await expect(page.getByLabel('File name or metadata').inputValue()).resolves.toBe('customers');
    // The day before today (UTC): a run made before midnight is still in it when the suite runs past midnight.
    await page.getByLabel('Created from').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Show runs' }).press('Enter');
    // The run was already listed before the filters were applied: wait for the filtered address, not the cell.
    await page.waitForURL((url) => url.searchParams.get('q') === 'customers');
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    // The form is the same form: the focus stays on the button that applied it.
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Show runs');
    // Reloaded from its address, the page shows the same filters and the same run.
    await page.reload();
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    await expect(page.getByLabel('File name or metadata').inputValue()).resolves.toBe('customers');
    // "Clear the filters" clears what was typed and not applied too, where the address has no filter to clear.
    await goto(page, '/console/runs');
    await page.getByRole('cell', { name: 'customers.csv' }).waitFor();
    await page.getByLabel('File name or metadata').fill('not applied');
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await expect(page.getByLabel('File name or metadata').inputValue()).resolves.toBe('');
    await page.getByRole('table').getByRole('link').first().click();
    await page.getByRole('heading', { name: `Run ${runId.slice(0, 8)}`, level: 1 }).waitFor();
  });

  it('tells a canceled review and one waiting for its reviewer from a delivered run, in words and colour', async () => {
    const key = await page.evaluate(async () => {
      const session = await (await fetch('/console/api/session')).json();
      const res = await fetch('/console/api/api-keys', { method: 'POST', headers: { 'x-csrf-token': session.data.csrf_token } });
      return (await res.json()).data.api_key as string;
    });
    const schema = (await call(`${svc.baseUrl}/v1/schemas`, { token: key })).body.data[0].id;
    const readyRun = async (filename: string) => {
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, { token: key, body: { schema_id: schema, filename } });
      await upload(created.body, 'Email,Tier\nada@example.com,gold\n');
      return waitForRun(svc, key, created.body.id, (r) => r.review_state === 'active');
    };
    const canceled = await readyRun('canceled.csv');
    await reviewApi(canceled.review_url).cancel();
    await waitForRun(svc, key, canceled.id, (r) => r.review_state === 'canceled');
    const waiting = await readyRun('waiting.csv');
    // The output's webhook: none for a run that will have no output, not yet for one whose output is to come.
    const outputWebhook = async (id: string) => {
      await goto(page, `/console/runs/${id}`);
      return page.locator('dt', { hasText: 'Output webhook' }).locator('xpath=following-sibling::dd[1]').textContent();
    };
    await expect(outputWebhook(canceled.id)).resolves.toMatch(/^None: the run has no output to announce/);
    await expect(outputWebhook(waiting.id)).resolves.toBe('Not yet: it is sent once the output is ready');
    await goto(page, '/console/runs');
    const badgeOf = async (filename: string) => {
      const badge = page.getByRole('row').filter({ hasText: filename }).locator('.badge');
      return [await badge.textContent(), await badge.getAttribute('class')];
    };
    await page.getByRole('cell', { name: 'waiting.csv' }).waitFor();
    expect(await badgeOf('canceled.csv')).toEqual(['Review canceled', 'badge tone-neutral']);
    expect(await badgeOf('waiting.csv')).toEqual(['In review', 'badge tone-neutral']);
    expect(await badgeOf('customers.csv')).toEqual(['Completed', 'badge tone-ok']);

    // A run waiting for its file says what starts it, by when, and offers the address to copy; sent there, it starts.
    const pending = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: key,
      body: { schema_id: schema, filename: 'later.csv' },
    });
    await goto(page, `/console/runs/${pending.body.id}`);
    const waitingFor = page.getByRole('region', { name: 'Waiting for the file' });
    // Its review and its rows are to come, not missing.
    const detail = (term: string) => page.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]').textContent();
    await expect(detail('Review')).resolves.toBe('Not open yet: it opens once the file is read');
    await expect(detail('Rows')).resolves.toBe('Not counted yet: they are counted as the file is read');
    await waitingFor.getByText('sent with PUT to this address', { exact: false }).waitFor();
    await expect(waitingFor.locator('code').textContent()).resolves.toBe(pending.body.upload.url);
    await waitingFor.getByText('Content-Type: text/csv', { exact: false }).waitFor();
    await waitingFor.getByRole('button', { name: 'Copy the upload address' }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-run-awaiting-upload');
    await upload(pending.body, 'Email,Tier\nbo@example.com,gold\n');
    await waitForRun(svc, key, pending.body.id, (r) => r.review_state === 'active');
    await page.reload();
    await page.getByRole('link', { name: 'Open the review' }).waitFor();
    await expect(page.getByRole('region', { name: 'Waiting for the file' }).count()).resolves.toBe(0);
    // The link opens a new tab, and its name says so (a screen reader said nothing of the tab it opened).
    const review = page.getByRole('link', { name: 'Open the review (opens in a new tab)', exact: true });
    await expect(review.getAttribute('target')).resolves.toBe('_blank');
  });

  it('invites a viewer who can look but never sees the secret or a key', async () => {
    await goto(page, '/console/members');
    await page.getByLabel('E-mail').fill('victor@acme.example');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await status(page).getByText('Invitation for victor@acme.example made.').waitFor();
    const url = (await page.locator('.panel code').textContent())!.trim();
    await screenshot(page, 'console-members');

    const viewer = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const vp = await viewer.newPage();
    await vp.goto(url);
    await vp.getByLabel('Your name').fill('Victor Viewer');
    await vp.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await vp.getByLabel('Password again').fill(PASSWORD);
    await vp.getByRole('button', { name: 'Join and sign in' }).click();
    await vp.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await goto(vp, '/console/webhook');
    await vp.getByText('Only owners and admins can see the webhook secret.').waitFor();
    await expect(vp.getByRole('button', { name: 'Reveal the secret' }).count()).resolves.toBe(0);
    await expect(vp.getByRole('button', { name: 'Rotate the secret' }).count()).resolves.toBe(0);
    await expect(vp.content()).resolves.not.toContain('whsec_');
    await goto(vp, '/console/api-keys');
    // The keys are listed (by prefix) before looking for buttons that must not be there.
    await vp.getByRole('cell', { name: /^tsk_/ }).first().waitFor();
    await expect(vp.getByRole('button', { name: 'Issue a key' }).count()).resolves.toBe(0);
    await expect(vp.getByRole('textbox', { name: 'Name (optional)' }).count()).resolves.toBe(0);
    await expect(vp.getByRole('button', { name: /^Revoke/ }).count()).resolves.toBe(0);
    // Even a hand-made call is refused.
    const refused = await vp.evaluate(async () => {
      const session = await (await fetch('/console/api/session')).json();
      const res = await fetch('/console/api/webhook/secret/reveal', {
        method: 'POST',
        headers: { 'x-csrf-token': session.data.csrf_token },
      });
      return { status: res.status, body: await res.text() };
    });
    expect(refused.status).toBe(403);
    expect(refused.body).not.toContain('whsec_');
    // A run in review (the test before's) shows its state but no review link: the link edits and approves.
    // Schemas: a viewer is told they read them, not given a greyed-out form that cannot be sent.
    await goto(vp, '/console/schemas/new');
    await vp.getByText('Owners and admins create schemas.', { exact: false }).waitFor();
    await expect(vp.getByRole('textbox').count()).resolves.toBe(0);
    await goto(vp, '/console/schemas');
    await vp.getByRole('main').getByRole('listitem').getByRole('link').first().click();
    await vp.getByText('Owners and admins edit schemas: this is what the schema holds, to read.').waitFor();
    await expect(vp.getByText('paste a schema here', { exact: false }).count()).resolves.toBe(0);
    await goto(vp, '/console/runs');
    await vp.getByRole('row').filter({ hasText: 'waiting.csv' }).getByRole('link').click();
    await vp.getByText('Owners and admins review runs; the review link is not shown to viewers.').waitFor();
    await expect(vp.getByRole('link', { name: 'Open the review' }).count()).resolves.toBe(0);
    await expect(vp.getByRole('button', { name: 'Copy the review link' }).count()).resolves.toBe(0);
    await expect(vp.content()).resolves.not.toContain('signature=');
    await screenshot(vp, 'console-run-viewer');
    await viewer.close();
  });

  it('says when the pending invitations cannot be read, with "Try again", rather than a heading over nothing', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Pending Ltd' } });
    const p = await joinedMember(org.body.id, 'pat@pending.example', 'Pat Pending', { width: 360, height: 780 });
    await inviteByOperator(svc, org.body.id, 'new@pending.example', 'viewer');
    // The members are read; the invitations not (a dropped connection), once.
    await p.route('**/console/api/invitations', (route) => route.abort('connectionrefused'), { times: 1 });
    await goto(p, '/console/members');
    await p.getByRole('cell', { name: /^Pat Pending/ }).waitFor();
    const failed = p.getByRole('alert').filter({ hasText: 'The service could not be reached.' });
    await failed.waitFor();
    // Under the pending invitations' heading, where the list would be.
    await expect(
      failed.evaluate((el) => {
        const heading = Array.from(document.querySelectorAll('h2')).find((h) => h.textContent === 'Pending invitations');
        return heading?.nextElementSibling === el;
      }),
    ).resolves.toBe(true);
    await expect(axeViolations(p)).resolves.toEqual([]);
    await screenshot(p, 'console-members-pending-not-read-360');
    await failed.getByRole('button', { name: 'Try again' }).focus();
    await p.keyboard.press('Enter');
    await p.getByRole('button', { name: 'Withdraw the invitation for new@pending.example' }).waitFor();
    await expect(p.getByRole('alert').filter({ hasText: 'The service could not be reached.' }).count()).resolves.toBe(0);
    await p.context().close();
  });

  it('names members who share a display name by their e-mail too, so each control, question and message says which', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Namesakes Ltd' } });
    const p = await joinedMember(org.body.id, 'olga@names.example', 'Olga Owner', { width: 360, height: 780 });
    for (const email of ['alex@names.example', 'alex.doe@names.example'])
      await (await joinedMember(org.body.id, email, email.startsWith('alex.') ? 'alex doe' : 'Alex Doe')).context().close();
    await goto(p, '/console/members');
    await p.getByRole('button', { name: 'Remove Alex Doe (alex@names.example)' }).waitFor();
    // No two controls of the list share a name (there were two "Remove Alex Doe" and two "Role of Alex Doe").
    const names = await p
      .locator('main table')
      .evaluate((table) =>
        Array.from(table.querySelectorAll('button, select'), (el) =>
          el instanceof HTMLSelectElement ? el.labels?.[0]?.textContent : el.textContent,
        ),
      );
    expect(names).toEqual(expect.arrayContaining(['Role of Alex Doe (alex@names.example)', 'Role of alex doe (alex.doe@names.example)']));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // Olga, whose name is her own, is named by it alone.
    await p.getByRole('button', { name: 'Remove Olga Owner', exact: true }).waitFor();
    // The question says which Alex goes, and so does the message.
    await p.getByRole('button', { name: 'Remove alex doe (alex.doe@names.example)' }).focus();
    await p.keyboard.press('Enter');
    const dialog = p.getByRole('dialog', { name: 'Remove alex doe (alex.doe@names.example)?' });
    await dialog.waitFor();
    await expect(axeViolations(p)).resolves.toEqual([]);
    await screenshot(p, 'console-members-namesakes-360');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await status(p).getByText('alex doe (alex.doe@names.example) was removed.').waitFor();
    // The other Alex is the only one now: named by the name alone again.
    await p.getByRole('button', { name: 'Remove Alex Doe', exact: true }).waitFor();
    await p.context().close();
  });

  it('tells two AI providers of one name apart: each card shows its id, and its buttons, question and messages name it', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Twin Models Ltd' } });
    const ids: string[] = [];
    for (const key of ['sk-first', 'sk-second']) {
      const made = await call(`${svc.baseUrl}/admin/v1/organizations/${org.body.id}/providers`, {
        token: ADMIN_TOKEN,
        body: { name: 'OpenAI prod', provider: 'openai', model: 'gpt-4o-mini', api_key: key },
      });
      ids.push(made.body.data.id as string);
    }
    const p = await joinedMember(org.body.id, 'tess@twins.example', 'Tess Twin', { width: 360, height: 780 });
    await goto(p, '/console/providers');
    const [first, second] = ids.map((id) => `OpenAI prod (${id.slice(0, 8)})`);
    await p.getByRole('button', { name: `Delete ${first}` }).waitFor();
    // The cards read alike but for their ids, which the buttons' names quote (they were two "Delete OpenAI prod").
    for (const id of ids) await p.getByRole('listitem').filter({ hasText: id }).waitFor();
    const names = await p.locator('main ul.cards button').allTextContents();
    expect(names).toEqual(expect.arrayContaining([`Test the connection to ${first}`, `Edit ${second}`, `Delete ${second}`]));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    await p.getByRole('button', { name: `Delete ${second}` }).focus();
    await p.keyboard.press('Enter');
    const dialog = p.getByRole('dialog', { name: `Delete the provider ${second}?` });
    await dialog.waitFor();
    await expect(axeViolations(p)).resolves.toEqual([]);
    await screenshot(p, 'console-providers-namesakes-360');
    await dialog.getByRole('button', { name: 'Delete it' }).click();
    await status(p).getByText(`Provider ${second} deleted.`).waitFor();
    expect(
      (await call(`${svc.baseUrl}/admin/v1/organizations/${org.body.id}/providers/${ids[1]}`, { method: 'DELETE', token: ADMIN_TOKEN }))
        .status,
    ).toBe(404);
    // The one left has its name to itself again.
    await p.getByRole('button', { name: 'Delete OpenAI prod', exact: true }).waitFor();
    await p.context().close();
  });

  it("the skip link takes the focus to the content, not to the page's body, signed in and on the sign-in form", async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Skip Ltd' } });
    const p = await joinedMember(org.body.id, 'sky@skip.example', 'Sky Skip', { width: 360, height: 780 });
    const skipTo = async (path: string) => {
      await goto(p, path);
      await p.getByRole('link', { name: 'Skip to the content' }).focus();
      await p.keyboard.press('Enter');
      await p.waitForFunction(() => location.hash === '#main');
      await expect(p.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
      // The next Tab goes on from there, into the content.
      await p.keyboard.press('Tab');
      await expect(p.evaluate(() => document.activeElement?.closest('main') !== null)).resolves.toBe(true);
    };
    await skipTo('/console/usage');
    await skipTo('/console/account');
    await p.getByRole('button', { name: 'Sign out' }).first().click();
    await p.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await skipTo('/console');
    await p.context().close();
  });

  it('tells an owner who opens the link they made for a colleague, signed in, whose link it is', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Link Check Ltd' } });
    const p = await joinedMember(org.body.id, 'lena@link.example', 'Lena Link', { width: 360, height: 780 });
    const made = await sessionCall(p, 'POST', '/invitations', { email: 'colin@link.example', role: 'admin' });
    // Pasted into the owner's own browser, to try it before sending it: the form reads like the owner's to fill in.
    await p.goto(made.body.data.url as string);
    await p.getByRole('heading', { name: 'Join your organization', level: 1 }).waitFor();
    const note = p.locator('#invite-someone-else');
    await expect(note.textContent()).resolves.toBe(
      'You are signed in here as Lena Link (lena@link.example). This link is for colin@link.example: send it to them rather than use it yourself. Joining here uses it up and signs you out of your own account in this browser.',
    );
    await expect(p.getByRole('button', { name: 'Join and sign in' }).getAttribute('aria-describedby')).resolves.toBe('invite-someone-else');
    await expect(axeViolations(p)).resolves.toEqual([]);
    await p.emulateMedia({ colorScheme: 'dark' });
    await expect(axeViolations(p)).resolves.toEqual([]);
    await screenshot(p, 'console-invitation-opened-by-its-owner-360-dark');
    await p.emulateMedia({ colorScheme: 'light' });
    // Colin, signed in nowhere, is told nothing of the kind.
    const colin = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    await colin.goto(made.body.data.url as string);
    await colin.getByLabel('Your name').waitFor();
    await expect(colin.locator('#invite-someone-else').count()).resolves.toBe(0);
    await expect(colin.getByRole('button', { name: 'Join and sign in' }).getAttribute('aria-describedby')).resolves.toBeNull();
    await colin.context().close();
    await p.context().close();
  });

  it('manages members: the only owner stays, a role changes, an invitation is withdrawn, a member removed', async () => {
    await goto(page, '/console/members');
    // The only owner can be neither demoted nor removed, and the page says why.
    await page.getByText('The only owner: make someone else an owner first', { exact: false }).waitFor();
    await expect(page.getByRole('button', { name: 'Remove Olivia Owner' }).count()).resolves.toBe(0);
    await expect(page.getByLabel('Role of Olivia Owner').isDisabled()).resolves.toBe(true);
    await page.getByText('An organization always keeps one owner.', { exact: false }).waitFor();

    // A role changes only once saved and confirmed: arrow keys in the select choose, they change nothing, and no dialog
    // stops them at the first role they pass.
    const victorRole = page.getByLabel('Role of Victor Viewer');
    const roleDialog = page.getByRole('dialog', { name: 'Make Victor Viewer Admin?' });
    const saveVictor = page.getByRole('button', { name: 'Save the role of Victor Viewer' });
    await expect(saveVictor.count()).resolves.toBe(0);
    await victorRole.focus();
    await page.keyboard.press('ArrowUp'); // viewer -> admin
    await page.keyboard.press('ArrowUp'); // admin -> owner
    await expect(roleDialog.count()).resolves.toBe(0);
    await expect(victorRole.inputValue()).resolves.toBe('owner');
    await page.keyboard.press('ArrowDown'); // owner -> admin
    await page.keyboard.press('Tab');
    await expect(saveVictor.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await roleDialog.waitFor();
    await page.keyboard.press('Escape');
    await roleDialog.waitFor({ state: 'hidden' });
    // Back where the keyboard was; the member is still a viewer.
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Save the role'));
    const roleOnServer = async () =>
      (await call(`${svc.baseUrl}/console/api/members`, { headers: { cookie: await cookieHeader() } })).body.data.find(
        (m: { email: string }) => m.email === 'victor@acme.example',
      ).role;
    await expect(roleOnServer()).resolves.toBe('viewer');
    // The list read again after the change is held: the select shows the new role meanwhile, not the old one.
    const listing = await holdRequests(page, '**/console/api/members', 'GET');
    await page.keyboard.press('Enter');
    await roleDialog.getByRole('button', { name: 'Make Admin' }).press('Enter');
    await status(page).getByText('Victor Viewer is now Admin.').waitFor();
    // The save button went with the change: the focus is on the member's select again.
    await saveVictor.waitFor({ state: 'detached' });
    await expect(victorRole.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(victorRole.inputValue()).resolves.toBe('admin');
    listing.release();
    await listing.stop();
    await expect(roleOnServer()).resolves.toBe('admin');

    await page.getByLabel('E-mail').fill('wanda@acme.example');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await status(page).getByText('Invitation for wanda@acme.example made.').waitFor();
    // Each new invitation starts at the least power again.
    await expect(page.getByLabel('Role', { exact: true }).inputValue()).resolves.toBe('viewer');
    const wandaUrl = (await page.locator('.panel code').textContent())!.trim();
    await page.getByRole('button', { name: 'Withdraw the invitation for wanda@acme.example' }).press('Enter');
    await page
      .getByRole('dialog', { name: 'Withdraw the invitation for wanda@acme.example?' })
      .getByRole('button', { name: 'Withdraw', exact: true })
      .press('Enter');
    await status(page).getByText('The invitation for wanda@acme.example was withdrawn.').waitFor();
    // The only pending invitation: the focus goes to the heading of the (now empty) list.
    await focusReaches(page, 'H2', 'Pending invitations');
    // The panel that offered its link goes with it.
    await page.getByRole('region', { name: 'Invitation for wanda@acme.example' }).waitFor({ state: 'detached' });
    const withdrawn = await browser.newPage();
    await withdrawn.goto(wandaUrl);
    await withdrawn.getByRole('alert').filter({ hasText: /\w/ }).first().waitFor();
    await expect(withdrawn.getByLabel('Your name').count()).resolves.toBe(0);
    await withdrawn.close();

    await page.getByRole('button', { name: 'Remove Victor Viewer' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Remove Victor Viewer?' });
    await dialog.getByText('signed out at once', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Remove' }).press('Enter');
    await status(page).getByText('Victor Viewer was removed.').waitFor();
    await page
      .getByRole('cell', { name: /Victor Viewer/ })
      .first()
      .waitFor({ state: 'detached' });
    await expect(page.getByRole('table').getByRole('row').count()).resolves.toBe(2); // the header and Olivia
    // Olivia, the only owner, has no "Remove" button to go on to: the focus goes to the list's heading, the page's.
    await focusReaches(page, 'H1', 'Members');
  });

  it('reads the audit log page by page, newest first', async () => {
    await goto(page, '/console/audit');
    const entries = page.getByRole('main').getByRole('listitem');
    // Whom a member change was about, and the roles before and after.
    await expect(entries.first().textContent()).resolves.toContain('olivia@acme.example removed victor@acme.example (Admin)');
    await expect(entries.allTextContents()).resolves.toEqual(
      expect.arrayContaining([
        expect.stringContaining('olivia@acme.example withdrew the invitation for wanda@acme.example as Viewer'),
        expect.stringContaining('olivia@acme.example changed the role of victor@acme.example from Viewer to Admin'),
      ]),
    );
    const pages = page.getByRole('navigation', { name: 'Pages of the audit log' });
    const position = (await pages.textContent())!;
    expect(position).toMatch(/Page 1 of 2 \(\d+ items\)/);
    await expect(entries.count()).resolves.toBe(20);
    const firstPage = await entries.allTextContents();
    await pages.getByRole('button', { name: 'Next page' }).press('Enter');
    await pages.getByText('Page 2 of 2', { exact: false }).waitFor();
    // On the last page the button says it leads nowhere, and keeps the focus the key press gave it.
    await pages.locator('button[aria-disabled="true"]', { hasText: 'Next page' }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Next page');
    // Pressed there anyway: no page 3 is asked for (an absence: given the time a render and its call would take).
    const asked: string[] = [];
    const onAsk = (r: { url(): string }) => r.url().includes('/console/api/audit') && asked.push(r.url());
    page.on('request', onAsk);
    await pages.getByRole('button', { name: 'Next page' }).press('Enter');
    await page.waitForTimeout(300);
    page.off('request', onAsk);
    expect(asked).toEqual([]);
    await expect(pages.textContent()).resolves.toContain('Page 2 of 2');
    // What was revoked or deleted is named, on whichever page it fell.
    await expect(entries.allTextContents().then((second) => [...firstPage, ...second])).resolves.toEqual(
      expect.arrayContaining([
        expect.stringMatching(/olivia@acme\.example revoked the API key [A-Za-z0-9_-]{8}$/),
        expect.stringMatching(/olivia@acme\.example deleted the AI provider OpenAI main$/),
      ]),
    );
    // The numbering goes on from page 1; the oldest entries: the organization's first key, issued by the operator as it
    // created the organization, then the operator's invitation of the first owner, who joined.
    await expect(page.getByRole('main').locator('ol').getAttribute('start')).resolves.toBe('21');
    await expect(entries.last().textContent()).resolves.toMatch(/The operator issued the API key [A-Za-z0-9_-]{8}$/);
    await expect(entries.allTextContents()).resolves.toEqual(
      expect.arrayContaining([
        expect.stringContaining('The operator invited olivia@acme.example as Owner'),
        expect.stringContaining('joined as Owner'),
      ]),
    );
  });

  it("keeps the focus in the list when a row leaves it: the next row's control, else the previous row's, else the heading", async () => {
    // Keys issued beside those of the earlier tests: several rows with a "Revoke" button.
    for (let i = 0; i < 2; i++)
      await page.evaluate(async () => {
        const session = await (await fetch('/console/api/session')).json();
        await fetch('/console/api/api-keys', { method: 'POST', headers: { 'x-csrf-token': session.data.csrf_token } });
      });
    await goto(page, '/console/api-keys');
    const revokeButtons = page.getByRole('button', { name: /^Revoke the key/ });
    await revokeButtons.first().waitFor();
    const revokeByKeyboard = async (name: string) => {
      await page.getByRole('button', { name, exact: true }).press('Enter');
      await page
        .getByRole('dialog', { name: `${name}?` })
        .getByRole('button', { name: 'Revoke it' })
        .press('Enter');
      await status(page)
        .getByText(`${name.replace('Revoke the key', 'The key')} is revoked.`)
        .waitFor();
    };
    // A row in the middle: the next row's button.
    let names = await revokeButtons.allTextContents();
    expect(names.length).toBeGreaterThanOrEqual(3);
    await revokeByKeyboard(names[1]);
    await focusReaches(page, 'BUTTON', names[2]);
    // The last row: there is no next one, so the previous row's button.
    names = await revokeButtons.allTextContents();
    await revokeByKeyboard(names[names.length - 1]);
    await focusReaches(page, 'BUTTON', names[names.length - 2]);

    // A schema's fields are a list too; "Add a field" takes the focus to the new field's name.
    await goto(page, '/console/schemas/new');
    await page
      .getByRole('group', { name: /^Field 1/ })
      .getByLabel('Field name')
      .fill('first');
    for (const name of ['second', 'third']) {
      await page.getByRole('button', { name: 'Add a field' }).press('Enter');
      await page.keyboard.type(name);
    }
    await expect(
      page
        .getByRole('group', { name: /^Field \d/ })
        .getByLabel('Field name')
        .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value)),
    ).resolves.toEqual(['first', 'second', 'third']);
    await page.getByRole('button', { name: 'Remove the field second' }).press('Enter');
    await focusReaches(page, 'BUTTON', 'Remove the field third');
    // One field left, which cannot be removed: the list's heading.
    await page.keyboard.press('Enter');
    await focusReaches(page, 'H2', 'Fields');

    // A schema deleted from its page: back on the list, whose heading has the focus.
    const made = await page.evaluate(async () => {
      const session = await (await fetch('/console/api/session')).json();
      const res = await fetch('/console/api/schemas', {
        method: 'POST',
        headers: { 'x-csrf-token': session.data.csrf_token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Short-lived', fields: { code: { description: 'Code', data_type: 'string', is_required: false } } }),
      });
      return (await res.json()).data.id as string;
    });
    await goto(page, `/console/schemas/${made}`);
    await page.getByRole('heading', { name: 'Schema Short-lived', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete the schema' }).press('Enter');
    await page.getByRole('dialog', { name: 'Delete the schema Short-lived?' }).getByRole('button', { name: 'Delete it' }).press('Enter');
    await status(page).getByText('Schema Short-lived deleted.').waitFor();
    await focusReaches(page, 'H1', 'Target schemas');
  });

  it('changes the password (a wrong current one is said beside it) and signs out every other session', async () => {
    const elsewhere = await browser.newContext();
    const other = await elsewhere.newPage();
    await other.goto(`${svc.baseUrl}/console`);
    await other.getByLabel('E-mail').fill(ownerEmail);
    await other.getByLabel('Password').fill(ownerPassword);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    // The other session is in the middle of an edit when it is ended.
    await other.goto(`${svc.baseUrl}/console/schemas/${schemaId}`);
    await other.getByLabel('Schema name').fill('Typed before the session ended');

    await goto(page, '/console/account');
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await status(page).getByText('1 other session was ended.').waitFor();
    // Dismissed by keyboard, the message gives the keyboard back to the button it answered (not to the page's top).
    await page.getByRole('button', { name: 'Dismiss' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Sign out everywhere else');
    // Its save is refused, and a dialog asks to sign in again over the page as it was, what was typed included.
    await other.getByRole('button', { name: 'Save the schema' }).click();
    const again = other.getByRole('dialog', { name: 'Your session has ended' });
    await again.waitFor();
    await other.waitForFunction(() => document.activeElement?.id === 'password');
    await expect(again.getByLabel('E-mail').inputValue()).resolves.toBe(ownerEmail);
    // Nothing of the page shows behind it, to whoever comes to the screen; it is kept, though.
    await expect(other.getByLabel('Schema name').isVisible()).resolves.toBe(false);
    // Nothing behind it would work: Escape, even twice (the browser lets a page refuse only one), leaves it open.
    await other.keyboard.press('Escape');
    await other.keyboard.press('Escape');
    await other.waitForTimeout(100); // the close event comes in a task of its own
    await again.waitFor();
    await other.waitForFunction(() => document.querySelector<HTMLDialogElement>('dialog[aria-labelledby="signin-again-title"]')?.open);
    await expect(axeViolations(other)).resolves.toEqual([]);
    await screenshot(other, 'console-session-ended');
    // A wrong password is said in the dialog (the page's own messages are behind it, unheard).
    await again.getByLabel('Password').fill('not the password at all');
    await again.getByLabel('Password').press('Enter');
    await again.getByRole('alert').filter({ hasText: 'The e-mail or password is not right.' }).waitFor();
    await again.getByLabel('Password').fill(ownerPassword);
    await again.getByLabel('Password').press('Enter');
    await again.waitFor({ state: 'detached' });
    await expect(other.getByLabel('Schema name').inputValue()).resolves.toBe('Typed before the session ended');
    // Back where the keyboard was: the button whose call found the session ended.
    await other.waitForFunction(() => document.activeElement?.textContent === 'Save the schema');
    // "Sign in as someone else" instead leaves nothing of the page behind.
    await other.context().clearCookies();
    await other.getByRole('button', { name: 'Save the schema' }).click();
    await again.getByRole('button', { name: 'Sign in as someone else' }).click();
    await other.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await expect(other.getByLabel('Schema name').count()).resolves.toBe(0);

    await page.getByLabel('Current password').fill('not the password at all');
    await page.getByLabel('New password (at least 12 characters)').fill('a brand new passphrase here');
    await page.getByLabel('New password again').fill('a brand new passphrase here');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('alert').filter({ hasText: /\w/ }).waitFor();
    await expect(page.getByLabel('Current password').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Current password').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.getByLabel('Current password').fill(ownerPassword);
    await page.getByLabel('New password (at least 12 characters)').fill('a brand new passphrase here');
    // A typo in the second one: nothing is sent, the second box says why and takes the keyboard.
    await page.getByLabel('New password again').fill('a brand new passphrase hrer');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByText('The two passwords are not the same. Type them again.').waitFor();
    await expect(page.getByLabel('New password again').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('New password again').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.getByLabel('New password again').fill('a brand new passphrase here');
    // Pressed twice: changed once, and no "not right" about the password just changed.
    const changes: string[] = [];
    const seen = (r: { url(): string; method(): string }) => r.url().endsWith('/console/api/me/password') && changes.push(r.method());
    page.on('request', seen);
    await page.getByRole('button', { name: 'Change the password' }).dblclick();
    await status(page).getByText('Your password was changed.', { exact: false }).waitFor();
    page.off('request', seen);
    expect(changes).toEqual(['PUT']);
    await expect(page.getByLabel('Current password').getAttribute('aria-invalid')).resolves.not.toBe('true');
    ownerPassword = 'a brand new passphrase here';
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-account');
    await elsewhere.close();
  });

  it('signs out, and signs in again by keyboard alone; a wrong password says so without telling whether the e-mail exists', async () => {
    await goto(page, '/console/account');
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-sign-in');
    // Dark, and at phone width.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 360, height: 800 });
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-sign-in-dark-360');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).focus();
    // The page's heading has the focus (a screen reader says where it is); the next stop is the e-mail.
    await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('H1');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('email');
    await page.keyboard.type(ownerEmail);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not my password at all');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'The e-mail or password is not right.' }).waitFor();
    await page.getByLabel('Password').fill('');
    await page.getByLabel('Password').focus();
    await page.keyboard.type(ownerPassword);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
  });

  it('a sign-out that does not reach the service says so and keeps the page, as the session still stands', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Shared Desk Ltd' } });
    const p = await joinedMember(org.body.id, 'sam@desk.example', 'Sam Desk', { width: 360, height: 780 });
    const errors: string[] = [];
    p.on('pageerror', (err) => errors.push(err.message));
    await goto(p, '/console/api-keys');
    // The service not reached (a dropped connection, a proxy down): its cookie, which the page cannot clear, still signs in.
    const notReached = (route: Route) => (route.request().method() === 'DELETE' ? route.abort('connectionrefused') : route.fallback());
    await p.route('**/console/api/session', notReached);
    const signOut = p.getByRole('button', { name: 'Sign out' });
    await signOut.focus();
    await p.keyboard.press('Enter');
    // Said, not "You are signed out." on the sign-in form: whoever leaves a shared computer would think it safe to.
    await p
      .getByRole('alert')
      .filter({ hasText: 'You are still signed in: signing out did not go through. The service could not be reached.' })
      .waitFor();
    await expect(p.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('API keys');
    expect(new URL(p.url()).pathname).toBe('/console/api-keys');
    await expect(signOut.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(p.evaluate(async () => (await fetch('/console/api/session')).status)).resolves.toBe(200);
    await expect(axeViolations(p)).resolves.toEqual([]);
    await screenshot(p, 'console-sign-out-not-reached-360');
    // Once it goes through, signed out.
    await p.unroute('**/console/api/session', notReached);
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await status(p).getByText('You are signed out.').waitFor();
    await expect(p.evaluate(async () => (await fetch('/console/api/session')).status)).resolves.toBe(401);
    expect(errors).toEqual([]);
    await p.context().close();
  });

  it.each(['light', 'dark'] as const)(
    'every page passes axe-core in %s, and fits 360 px without sideways scrolling',
    async (scheme) => {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 800 });
        // Every section, a schema (new and saved), a run, and a path that names no page.
        const paths = [...PAGES, 'schemas/new', `schemas/${schemaId}`, `runs/${runId}`, 'nothing-here'];
        for (const name of paths) {
          await goto(page, `/console/${name}`);
          await page.waitForLoadState('networkidle');
          // Each page as a signed-in member sees it (not the sign-in form in its place).
          await expect(page.getByRole('navigation', { name: 'Console' }).isVisible()).resolves.toBe(true);
          // The usage figures as a table too: every column in sight, none in a box that scrolls sideways.
          if (name === 'usage') {
            await page.getByText('Show the figures as a table').click();
            const hidden = await page.locator('details .table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth);
            expect({ page: name, width, hidden }).toEqual({ page: name, width, hidden: 0 });
          }
          const violations = await axeViolations(page);
          expect({ page: name, width, violations }).toEqual({ page: name, width, violations: [] });
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect({ page: name, width, overflow }).toEqual({ page: name, width, overflow: 0 });
          const shot = name.replace(schemaId, 'schema').replace(runId, 'run').replace('/', '-');
          if (width === 360 || name === 'runs' || name === 'usage') await screenshot(page, `console-${shot}-${scheme}-${width}`);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 900 });
    },
    120_000,
  );

  it('fits the usage figures and a card a day in 360 px, light and dark, with the largest figures: nothing sideways, nothing cut', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Busy Usage Ltd' } });
    const p = await joinedMember(org.body.id, 'uma@usage.example', 'Uma Usage', { width: 360, height: 800 });
    // A busy organization's figures (a new one has none): the widest each card and the quota will ever have to hold.
    const days = Array.from({ length: 30 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 10, i + 1)).toISOString().slice(0, 10),
      finished: 123_456 + i,
      failed: 98_765,
      canceled: 4_321,
      other: 1_234_567,
    }));
    await p.route('**/console/api/usage', (route) =>
      route.fulfill({
        json: { data: { quota: { limit: 10_000_000, used: 1_234_567, left: 8_765_433 }, days, rows_processed: 123_456_789_012 } },
      }),
    );
    for (const scheme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme: scheme });
      await goto(p, '/console/usage');
      await p.getByText('Show the figures as a table').click();
      const layout = await p.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const outside = (el: Element) => {
          const r = el.getBoundingClientRect();
          return r.left < -0.5 || r.right > width + 0.5;
        };
        const cards = Array.from(document.querySelectorAll('details .table-wrap tbody tr'));
        const figures = Array.from(document.querySelectorAll('dl.facts dt, dl.facts dd'));
        const named = (el: Element) => (el.querySelector('th') ?? el).textContent?.trim().slice(0, 30);
        return {
          sideways: document.documentElement.scrollWidth - width,
          cards: cards.length,
          cardsOutside: cards.filter(outside).map(named),
          figuresOutside: figures.filter(outside).map(named),
          // A value wider than its box is cut (or spills over the card's edge).
          cut: [...figures, ...cards.flatMap((c) => Array.from(c.children))]
            .filter((el) => el.scrollWidth > el.clientWidth + 0.5)
            .map((el) => el.textContent?.trim().slice(0, 30)),
        };
      });
      expect({ scheme, ...layout }).toEqual({ scheme, sideways: 0, cards: 30, cardsOutside: [], figuresOutside: [], cut: [] });
      // Written as the quota above writes its figures, with the language's grouping: "1,234,567", not "1234567".
      await expect(p.locator('details tbody tr').first().locator('td').allInnerTexts()).resolves.toEqual([
        '123,456',
        '98,765',
        '4,321',
        '1,234,567',
      ]);
      await expect(axeViolations(p)).resolves.toEqual([]);
      await screenshot(p, `console-usage-busy-${scheme}-360`);
    }
    await p.context().close();
  });

  /** A member who accepted an operator's invitation to `orgId` in a browser of their own, signed in on the runs page. */
  async function joinedMember(
    orgId: string,
    email: string,
    name: string,
    viewport = { width: 1280, height: 900 },
    timezoneId?: string,
  ): Promise<Page> {
    const context = await browser.newContext({ viewport, timezoneId });
    context.setDefaultTimeout(10_000);
    const joined = await context.newPage();
    await joined.goto((await inviteByOperator(svc, orgId, email)).url);
    await joined.getByLabel('Your name').fill(name);
    await joined.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await joined.getByLabel('Password again').fill(PASSWORD);
    await joined.getByRole('button', { name: 'Join and sign in' }).click();
    await joined.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    return joined;
  }

  it('an owner who makes themselves admin is asked first, and the console then offers only what an admin may do', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Two Owners' } });
    const join = (email: string, name: string) => joinedMember(org.body.id, email, name);
    const first = await join('first@two.example', 'Fay First');
    await (await join('second@two.example', 'Sam Second')).context().close();
    await goto(first, '/console/members');
    await first.getByRole('button', { name: 'Send the invitation' }).waitFor();
    const own = first.getByLabel('Role of Fay First');
    await own.focus();
    await first.keyboard.press('ArrowDown'); // owner -> admin
    await first.getByRole('button', { name: 'Save the role of Fay First' }).click();
    const dialog = first.getByRole('dialog', { name: 'Make Fay First Admin?' });
    await dialog.getByText('This is your own role', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Make Admin' }).click();
    await status(first).getByText('Fay First is now Admin.').waitFor();
    // The session is read again: no member management is offered any more, and no 403 waits behind a button.
    await first.getByRole('button', { name: 'Send the invitation' }).waitFor({ state: 'detached' });
    await expect(first.getByLabel('Role of Sam Second').count()).resolves.toBe(0);
    await first.context().close();
  });

  it('a member made a viewer by another owner meanwhile is told why the first change is refused, and the page then offers only what a viewer may do', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Demoted Ltd' } });
    const dee = await joinedMember(org.body.id, 'dee@demoted.example', 'Dee Demoted');
    const otto = await joinedMember(org.body.id, 'otto@demoted.example', 'Otto Owner');
    await goto(dee, '/console/api-keys');
    await dee.getByRole('button', { name: 'Issue a key' }).waitFor();
    // A second tab of hers, on a schema's form.
    const leads = await call(`${svc.baseUrl}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Leads', fields: { email: { description: 'E-mail', data_type: 'email', is_required: true } } },
    });
    const deeSchema = await dee.context().newPage();
    await deeSchema.goto(`${svc.baseUrl}/console/schemas/${leads.body.data.id}`);
    await deeSchema.getByLabel('Schema name').waitFor();
    // Otto makes Dee a viewer in his own browser; Dee's page, drawn before, still offers to issue a key.
    await goto(otto, '/console/members');
    await otto.getByLabel('Role of Dee Demoted').selectOption('viewer');
    await otto.getByRole('button', { name: 'Save the role of Dee Demoted' }).click();
    await otto.getByRole('dialog', { name: 'Make Dee Demoted Viewer?' }).getByRole('button', { name: 'Make Viewer' }).click();
    await status(otto).getByText('Dee Demoted is now Viewer.').waitFor();
    await otto.context().close();
    // By keyboard: the refusal says why, the control goes with the role, and the keyboard is on the page's heading, not lost.
    await dee.getByLabel('Name (optional)').fill('billing export');
    await dee.getByLabel('Name (optional)').press('Enter');
    await dee.getByRole('alert').getByText('Viewers can look but not change anything.', { exact: false }).waitFor();
    await dee.getByText('Dee Demoted (Viewer)').waitFor();
    await dee.getByRole('button', { name: 'Issue a key' }).waitFor({ state: 'detached' });
    await expect(
      dee.evaluate(() => (document.activeElement as HTMLElement).tagName + ':' + (document.activeElement as HTMLElement).textContent),
    ).resolves.toBe('H1:API keys');
    // The schema form, sent with Enter from its name: refused, the form is a viewer's (read-only), and the keyboard goes
    // to the page's heading rather than staying on an input that can no longer be used.
    await deeSchema.getByLabel('Schema name').fill('Leads 2');
    await deeSchema.getByLabel('Schema name').press('Enter');
    await deeSchema.getByRole('alert').getByText('Viewers can look but not change anything.', { exact: false }).waitFor();
    // The alert comes with the refusal; the form turns read-only once the session is read again (whenForbidden), as the
    // first tab's role name does above: waited for, not read at the alert's moment (a loaded run read it before).
    await deeSchema.getByLabel('Schema name').and(deeSchema.locator(':disabled')).waitFor();
    await expect(deeSchema.getByLabel('Schema name').isDisabled()).resolves.toBe(true);
    await expect(deeSchema.evaluate(() => document.activeElement?.tagName)).resolves.toBe('H1');
    await dee.context().close();
  });

  it('says the service could not be reached when the session cannot be read on load, not the sign-in form; "Try again" by keyboard; an empty delivery log says none was sent', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Offline Ltd' } });
    const member = await joinedMember(org.body.id, 'olga@offline.example', 'Olga Offline', { width: 360, height: 740 });
    await member.route('**/console/api/session', (route) => route.abort('connectionrefused'));
    await member.goto(`${svc.baseUrl}/console/runs`);
    await member.getByRole('alert').getByText('The service could not be reached. Check your connection and try again.').waitFor();
    await expect(member.getByLabel('Password', { exact: true }).count()).resolves.toBe(0);
    await expect(axeViolations(member)).resolves.toEqual([]);
    await member.unroute('**/console/api/session');
    await member.getByRole('button', { name: 'Try again' }).focus();
    await member.keyboard.press('Enter');
    await member.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    // A new organization's delivery log says none was sent yet; with a filter, that none matches.
    await goto(member, '/console/webhook');
    await member.getByText('No run has sent a webhook yet.', { exact: false }).waitFor();
    await member.getByLabel('Outcome').selectOption('failed');
    await member.getByText('No delivery matches.').waitFor();
    await member.context().close();
  });

  it('keeps what the keyboard reaches clear of a status message at 360 px', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Narrow Ltd' } });
    const narrow = await joinedMember(org.body.id, 'nia@narrow.example', 'Nia Narrow', { width: 360, height: 740 });
    const context = narrow.context();
    await goto(narrow, '/console/members');
    /** What the focused control shows above the status message: null when it is clear of it. */
    const focusedUnderMessage = () =>
      narrow.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const area = document.querySelector('.status-area.shown');
        if (!area || area.contains(el) || el === document.body) return null;
        const message = area.getBoundingClientRect();
        const at = el.getBoundingClientRect();
        return at.bottom <= message.top + 0.5 ? null : el.id || el.textContent || el.tagName;
      });
    for (const who of ['ada', 'bob', 'cy']) {
      await narrow.getByLabel('E-mail').fill(`${who}@narrow.example`);
      // Sent with Enter from the field, which keeps the focus: the message that appears does not cover it.
      await narrow.getByLabel('E-mail').press('Enter');
      await status(narrow).getByText(`${who}@narrow.example`, { exact: false }).waitFor();
      await expect(narrow.getByLabel('E-mail').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      // Scrolled clear once the message is measured (a frame or two later): waited for, not slept on.
      for (let i = 0; i < 20 && (await focusedUnderMessage()) !== null; i++) await narrow.waitForTimeout(50);
      await expect(focusedUnderMessage()).resolves.toBeNull();
    }
    await narrow.getByRole('heading', { name: 'Members', level: 1 }).focus();
    const under: string[] = [];
    for (let i = 0; i < 30; i++) {
      await narrow.keyboard.press('Tab');
      const where = await focusedUnderMessage();
      if (where) under.push(where);
    }
    expect(under).toEqual([]);
    await context.close();
  });

  it('an owner who removes themselves is told so first, and lands on the sign-in page saying why', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Leaving Ltd' } });
    const members = [
      await joinedMember(org.body.id, 'lea@leaving.example', 'Lea Leaving'),
      await joinedMember(org.body.id, 'sol@leaving.example', 'Sol Staying'),
    ];
    const [lea, sol] = members;
    await goto(lea, '/console/members');
    await lea.getByRole('button', { name: 'Remove Lea Leaving' }).click();
    const dialog = lea.getByRole('dialog', { name: 'Remove yourself?' });
    await dialog.getByText('This is your own account', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    // Not "your session has ended" with her e-mail filled in: the account is gone, and the page says so.
    await lea.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await status(lea).getByText('You were removed from Leaving Ltd and are signed out.').waitFor();
    await expect(lea.getByRole('dialog', { name: 'Your session has ended' }).count()).resolves.toBe(0);
    await expect(axeViolations(lea)).resolves.toEqual([]);
    // The other owner no longer sees her.
    await goto(sol, '/console/members');
    await sol.getByLabel('Role of Sol Staying').waitFor();
    await expect(sol.getByText('Lea Leaving').count()).resolves.toBe(0);
    for (const page of members) await page.context().close();
  });
  it('a member invited again sets a new password by keyboard alone: no name asked, signed in, the old password refused', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Forgotten Password' } });
    const email = 'rita@forgotten.example';
    const first = await inviteByOperator(svc, org.body.id, email);
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    context.setDefaultTimeout(10_000);
    const joined = await context.newPage();
    await joined.goto(first.url);
    await joined.getByLabel('Your name').fill('Rita Owner');
    await joined.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await joined.getByLabel('Password again').fill(PASSWORD);
    await joined.getByRole('button', { name: 'Join and sign in' }).click();
    await joined.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    // A viewer of hers joins; invited again from the members page, the link is named for what it is.
    const vic = await inviteByOperator(svc, org.body.id, 'vic@forgotten.example', 'viewer');
    await call(`${svc.baseUrl}/console/api/invitations/${vic.id}/accept?signature=${new URL(vic.url).searchParams.get('signature')}`, {
      method: 'POST',
      body: { display_name: 'Vic Viewer', password: PASSWORD },
      headers: { origin: svc.baseUrl },
    });
    await goto(joined, '/console/members');
    await joined.getByRole('button', { name: 'Remove Vic Viewer' }).waitFor();
    await joined.getByLabel('E-mail').fill('vic@forgotten.example');
    await joined.getByRole('button', { name: 'Send the invitation' }).click();
    await joined.getByRole('heading', { name: 'A link for vic@forgotten.example to set a new password' }).waitFor();
    await status(joined).getByText('vic@forgotten.example is already a member', { exact: false }).waitFor();
    // Pending, it is listed as what it is, not as an invitation with a role she would not get.
    await joined.getByRole('listitem').filter({ hasText: 'vic@forgotten.example · a link to set a new password (role kept)' }).waitFor();
    // The operator's quota, in words in the audit log: one preparation, then no limit.
    for (const review_preparations of [1, null])
      await call(`${svc.baseUrl}/admin/v1/organizations/${org.body.id}/quota`, {
        method: 'PUT',
        token: ADMIN_TOKEN,
        body: { review_preparations },
      });
    await goto(joined, '/console/audit');
    await joined.getByText('The operator set the quota to 1 review preparation', { exact: false }).waitFor();
    await joined.getByText('The operator made review preparations unlimited', { exact: false }).waitFor();
    await joined.getByText('sent vic@forgotten.example a link to set a new password', { exact: false }).waitFor();
    // The only owner forgot hers: the operator invites her again.
    const reset = await inviteByOperator(svc, org.body.id, email);
    const resetPage = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
    resetPage.context().setDefaultTimeout(10_000);
    await resetPage.goto(reset.url);
    await resetPage.getByRole('heading', { name: 'Set a new password', level: 1 }).waitFor();
    await resetPage.getByText('This link sets a new password for your account in Forgotten Password.', { exact: false }).waitFor();
    await expect(resetPage.getByLabel('Your name').count()).resolves.toBe(0);
    await expect(axeViolations(resetPage)).resolves.toEqual([]);
    await screenshot(resetPage, 'console-password-reset-360');
    const newPassword = 'rita remembers this passphrase';
    await resetPage.getByLabel('Password', { exact: true }).focus();
    await resetPage.keyboard.type(newPassword);
    await resetPage.keyboard.press('Tab');
    await expect(resetPage.evaluate(() => document.activeElement?.id)).resolves.toBe('password-again');
    await resetPage.keyboard.type(newPassword);
    await resetPage.keyboard.press('Enter');
    await resetPage.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await resetPage.getByText('Rita Owner (Owner)').waitFor();
    // Her other session is over; the old password no longer opens the console, the new one does.
    await joined.reload();
    await joined.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await joined.getByLabel('E-mail').fill(email);
    await joined.getByLabel('Password').fill(PASSWORD);
    await joined.getByRole('button', { name: 'Sign in' }).click();
    await joined.getByRole('alert').filter({ hasText: 'The e-mail or password is not right.' }).waitFor();
    await joined.getByLabel('Password').fill(newPassword);
    await joined.getByRole('button', { name: 'Sign in' }).click();
    // Signed in where she was: the audit log.
    await joined.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await context.close();
    await resetPage.context().close();
  });

  it("waits only on the row whose action runs: while one provider's test runs, another's can be tested", async () => {
    await goto(page, '/console/providers');
    const ids = await page.evaluate(
      async ({ baseUrl, apiKey }) => {
        const session = await (await fetch('/console/api/session')).json();
        const headers = { 'x-csrf-token': session.data.csrf_token, 'content-type': 'application/json' };
        const made: string[] = [];
        for (const name of ['Slow vendor', 'Quick vendor']) {
          const body = JSON.stringify({ name, provider: 'openai', model: 'gpt-4o-mini', api_key: apiKey, base_url: `${baseUrl}/v1` });
          made.push((await (await fetch('/console/api/providers', { method: 'POST', headers, body })).json()).data.id);
        }
        return made;
      },
      { baseUrl: vendor.baseUrl, apiKey: OPENAI_KEY },
    );
    await page.reload();
    // The slow vendor's test is held until the end.
    let answerSlow = () => {};
    const held = new Promise<void>((resolve) => (answerSlow = resolve));
    await page.route(`**/console/api/providers/${ids[0]}/test`, async (route) => {
      await held;
      await route.continue();
    });
    const slow = page.getByRole('button', { name: 'Test the connection to Slow vendor' });
    const quick = page.getByRole('button', { name: 'Test the connection to Quick vendor' });
    await slow.press('Enter');
    await expect(slow.getAttribute('aria-disabled')).resolves.toBe('true');
    await expect(quick.getAttribute('aria-disabled')).resolves.toBeNull();
    await quick.press('Enter');
    await status(page).getByText('Quick vendor answered in', { exact: false }).waitFor();
    answerSlow();
    await status(page).getByText('Slow vendor answered in', { exact: false }).waitFor();
    await expect(slow.getAttribute('aria-disabled')).resolves.toBeNull();
    await page.unroute(`**/console/api/providers/${ids[0]}/test`);
  });
  /** The session's CSRF token, for calls a test makes from a signed-in page. */
  const sessionCall = (p: Page, method: string, path: string, body?: unknown) =>
    p.evaluate(
      async ({ method, path, body }) => {
        const session = await (await fetch('/console/api/session')).json();
        const res = await fetch(`/console/api${path}`, {
          method,
          headers: { 'x-csrf-token': session.data.csrf_token, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json().catch(() => null) };
      },
      { method, path, body },
    );

  it("the runs filters' days are the days the list shows, in the browser's time zone, not UTC days", async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Far Zone Ltd' } });
    const key = org.body.api_key as string;
    const schema = await call(`${svc.baseUrl}/admin/v1/organizations/${org.body.id}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Rows', fields: { a: { description: 'A', data_type: 'string', is_required: false } } },
    });
    await call(`${svc.baseUrl}/v1/transformations/file`, { token: key, body: { schema_id: schema.body.data.id, filename: 'zoned.csv' } });
    // When the run was made (the service runs in this process, on this clock), to the second or so.
    const made = new Date();
    // A zone where the run was made on another day than in UTC: 12 hours west before noon UTC, 14 hours east after.
    const west = made.getUTCHours() < 12;
    const p = await joinedMember(org.body.id, 'zed@zone.example', 'Zed Zone', undefined, west ? 'Etc/GMT+12' : 'Etc/GMT-14');
    const localDay = (offsetDays: number) =>
      new Date(made.getTime() + ((west ? -12 : 14) * 3_600_000 + offsetDays * 86_400_000)).toISOString().slice(0, 10);
    expect(localDay(0)).not.toBe(made.toISOString().slice(0, 10));
    await p.getByRole('cell', { name: 'zoned.csv' }).waitFor();
    const shownDay = await p.getByRole('cell', { name: 'zoned.csv' }).locator('xpath=preceding-sibling::td[1]').textContent();
    const apply = async (from: string, until: string) => {
      await p.getByLabel('Created from').fill(from);
      await p.getByLabel('Created until').fill(until);
      await p.getByRole('button', { name: 'Show runs' }).press('Enter');
      await p.waitForURL((url) => url.searchParams.get('created_after') === from && url.searchParams.get('created_before') === until);
    };
    const noneFound = async () => {
      await p.getByText('No run matches these filters.', { exact: false }).first().waitFor();
      await expect(p.getByRole('table').count()).resolves.toBe(0);
    };
    // Each step changes what is shown, so each wait sees the new list. The day before the one the list gives the run in
    // that zone: not found (west of UTC, a UTC day's bounds found it there).
    await apply(localDay(-1), localDay(-1));
    await noneFound();
    // That day, from and until: found (it was "No run matches these filters").
    await apply(localDay(0), localDay(0));
    await p.getByRole('cell', { name: 'zoned.csv' }).waitFor();
    expect(await p.getByRole('table').getByRole('row').count()).toBe(2);
    // The day after: not found (east of UTC, a UTC day's bounds found it there).
    await apply(localDay(1), localDay(1));
    await noneFound();
    expect(shownDay).toContain(new Date(`${localDay(0)}T12:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric' }));
    await screenshot(p, 'console-runs-filtered-by-local-day');
    await p.context().close();
  });

  it('tells runs apart by their links; a range that ends before it starts is said at its field, not dropped; a page past the end offers the last', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Range Ltd' } });
    const p = await joinedMember(org.body.id, 'rae@range.example', 'Rae Range');
    const key = (await sessionCall(p, 'POST', '/api-keys')).body.data.api_key as string;
    const schema = await sessionCall(p, 'POST', '/schemas', {
      name: 'Rows',
      fields: { a: { description: 'A', data_type: 'string', is_required: false } },
    });
    for (const filename of ['alpha.csv', 'beta.csv'])
      await call(`${svc.baseUrl}/v1/transformations/file`, { token: key, body: { schema_id: schema.body.data.id, filename } });
    await goto(p, '/console/runs');
    await p.getByRole('cell', { name: 'beta.csv' }).waitFor();
    // Each link's name says which run it opens (its text was a time alone, the same for runs made in one minute).
    const links = await p.getByRole('table').getByRole('link').allTextContents();
    expect(links).toHaveLength(2);
    expect(links).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^beta\.csv — run [0-9a-f]{8}, created \w/),
        expect.stringMatching(/^alpha\.csv — run [0-9a-f]{8}, created \w/),
      ]),
    );
    await p.getByRole('link', { name: /^alpha\.csv — run [0-9a-f]{8}, created/ }).waitFor();

    // An end before the start: not applied, said at the end's field, which takes the keyboard.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await p.getByLabel('Created from').fill(day(0));
    const until = p.getByLabel('Created until');
    await until.fill(day(-1));
    await p.getByRole('button', { name: 'Show runs' }).press('Enter');
    await p.locator('#created_before-error').waitFor();
    await expect(until.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(until.getAttribute('aria-describedby')).resolves.toBe('created_before-error');
    await expect(p.locator('#created_before-error').textContent()).resolves.toContain('Created until is before Created from');
    await expect(until.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    expect(new URL(p.url()).search).toBe('');
    await expect(axeViolations(p)).resolves.toEqual([]);
    // Either day changed, the message goes (it is judged again when applied); mended, the range is applied.
    await p.getByLabel('Created from').fill(day(-2));
    await expect(until.getAttribute('aria-invalid')).resolves.toBeNull();
    await p.getByLabel('Created from').fill(day(0));
    await until.fill(day(1));
    await p.getByRole('button', { name: 'Show runs' }).click();
    await p.waitForURL((url) => url.searchParams.get('created_before') === day(1));
    await p.getByRole('cell', { name: 'beta.csv' }).waitFor();
    await expect(until.getAttribute('aria-invalid')).resolves.toBeNull();
    // An address edited to such a range: listed without its end, and the field says so.
    await goto(p, `/console/runs?created_after=${day(0)}&created_before=${day(-1)}`);
    await p.getByRole('cell', { name: 'beta.csv' }).waitFor();
    await expect(until.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(p.locator('#created_before-error').textContent()).resolves.toContain('the list is not limited by it');

    // A page past the last: said, and no "Page 9 of 1" under it.
    await goto(p, '/console/runs?page=9');
    await p.getByText('No run on this page: the list has 1 page.').waitFor();
    await expect(p.getByText('Page 9 of 1', { exact: false }).count()).resolves.toBe(0);
    // Any paged list: a page past the end (the list shrank meanwhile: here the answers say so) says so and offers the
    // last page, by keyboard.
    await p.route(
      '**/console/api/audit?page=1',
      async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { meta: { last_page: number; total: number } };
        await route.fulfill({ response, json: { ...body, meta: { ...body.meta, last_page: 2, total: 25 } } });
      },
      { times: 1 },
    );
    await p.route(
      '**/console/api/audit?page=2',
      (route) =>
        route.fulfill({ json: { data: [], meta: { current_page: 2, last_page: 1, total: 3, per_page: 20, from: null, to: null } } }),
      { times: 1 },
    );
    await goto(p, '/console/audit');
    const pages = p.getByRole('navigation', { name: 'Pages of the audit log' });
    await pages.getByRole('button', { name: 'Next page' }).click();
    await pages.getByText('Nothing on page 2: the list has 1 page.').waitFor();
    await expect(pages.getByText('Page 2 of 1', { exact: false }).count()).resolves.toBe(0);
    await expect(axeViolations(p)).resolves.toEqual([]);
    await pages.getByRole('button', { name: 'Go to the last page' }).press('Enter');
    await pages.getByText('Page 1 of 1', { exact: false }).waitFor();
    await expect(p.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Previous page');

    // Whoever is locked out or forgot their password is told whom to ask, an owner too.
    const signedOut = await browser.newPage();
    await signedOut.goto(`${svc.baseUrl}/console`);
    await signedOut.getByText('Ask an owner of your organization to invite you again', { exact: false }).waitFor();
    await signedOut.getByText('(owners: ask your service operator', { exact: false }).waitFor();
    await signedOut.close();
    await p.context().close();
  });

  it('says a refused form\'s reasons beside its fields, not the API\'s "The given data was invalid."; the audit log says a test event failed', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Refusals Ltd' } });
    const p = await joinedMember(org.body.id, 'rex@refusals.example', 'Rex Refused');
    const alert = p.getByRole('alert');
    const generic = () => alert.filter({ hasText: 'The given data was invalid.' }).count();
    const isFocused = (el: Locator) => el.evaluate((node) => node === document.activeElement);

    await goto(p, '/console/webhook');
    const url = p.getByLabel('Webhook URL');
    await url.fill('not a url');
    await p.getByRole('button', { name: 'Save the URL' }).click();
    await alert.filter({ hasText: 'That was refused: see the message beside the field.' }).waitFor();
    await expect(generic()).resolves.toBe(0);
    await expect(url.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(p.locator('#webhook-url-error').textContent()).resolves.toMatch(/\w/);
    await expect(isFocused(url)).resolves.toBe(true);
    // A message about something the form has no input for is said in full: it would be said nowhere else.
    await p.route(
      '**/console/api/webhook',
      (route) =>
        route.fulfill({
          status: 422,
          json: {
            error: {
              code: 'validation_failed',
              message: 'The given data was invalid.',
              fields: { url: ['The URL is refused.'], retries: ['Retries are not set here.'] },
            },
          },
        }),
      { times: 1 },
    );
    await p.getByRole('button', { name: 'Save the URL' }).click();
    await alert.filter({ hasText: 'That was refused: see the message beside the field. Retries are not set here.' }).waitFor();
    await expect(p.locator('#webhook-url-error').textContent()).resolves.toBe('The URL is refused.');

    // The test event, refused by the receiver: the audit log says it was not delivered.
    await url.fill(`${receiver.url}/hooks?case=audit-test`);
    await p.getByRole('button', { name: 'Save the URL' }).click();
    await status(p).getByText('The default webhook URL is saved.').waitFor();
    receiver.plan.push('error');
    await p.getByRole('button', { name: 'Send a test event' }).click();
    await alert
      .filter({ hasText: /The test event to \u2068?http:\/\/127\.0\.0\.1:\d+\/hooks\?case=audit-test\u2069? was not delivered/ })
      .waitFor();
    await goto(p, '/console/audit');
    await p.getByText(`sent a test event to ${receiver.url}/hooks?case=audit-test: it was not delivered`).waitFor();

    await goto(p, '/console/members');
    const email = p.getByLabel('E-mail');
    await email.fill('not-an-email');
    await p.getByRole('button', { name: 'Send the invitation' }).click();
    await alert.filter({ hasText: 'That was refused: see the message beside the field.' }).waitFor();
    await expect(generic()).resolves.toBe(0);
    await expect(email.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(p.locator('#invite-email-error').textContent()).resolves.toContain('e-mail address');
    await expect(isFocused(email)).resolves.toBe(true);
    // The role's message has a place of its own.
    await p.route(
      '**/console/api/invitations',
      (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({
              status: 422,
              json: {
                error: { code: 'validation_failed', message: 'The given data was invalid.', fields: { role: ['Choose a role.'] } },
              },
            })
          : route.continue(),
      { times: 1 },
    );
    await email.fill('ivy@refusals.example');
    await p.getByRole('button', { name: 'Send the invitation' }).click();
    const role = p.getByLabel('Role', { exact: true });
    await p.locator('#invite-role-error').waitFor();
    await expect(role.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(role.getAttribute('aria-describedby')).resolves.toBe('invite-role-error');
    await expect(p.locator('#invite-role-error').textContent()).resolves.toBe('Choose a role.');
    await expect(axeViolations(p)).resolves.toEqual([]);

    await goto(p, '/console/providers');
    await p.getByRole('button', { name: 'Add a provider' }).click();
    await p.getByLabel('Model', { exact: true }).fill('gpt-4o');
    await p.getByRole('button', { name: 'Save the provider' }).click();
    await alert.filter({ hasText: /^That was refused: see the messages? beside the fields?\.$/ }).waitFor();
    await expect(generic()).resolves.toBe(0);
    await expect(p.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');

    await goto(p, '/console/account');
    await p.getByLabel('Current password').fill('not the password at all');
    await p.getByLabel('New password (at least 12 characters)').fill('a brand new passphrase here');
    await p.getByLabel('New password again').fill('a brand new passphrase here');
    await p.getByRole('button', { name: 'Change the password' }).click();
    await alert.filter({ hasText: 'That was refused: see the message beside the field.' }).waitFor();
    await expect(generic()).resolves.toBe(0);
    await expect(p.getByLabel('Current password').getAttribute('aria-invalid')).resolves.toBe('true');

    // Signing in: a refusal that names a field points at it too.
    const signIn = await browser.newPage();
    await signIn.goto(`${svc.baseUrl}/console`);
    // The first sign-in only is answered here (a count of matches would also count the page's own GET of the session).
    let answered = false;
    await signIn.route('**/console/api/session', (route) => {
      if (route.request().method() !== 'POST' || answered) return route.continue();
      answered = true;
      return route.fulfill({
        status: 422,
        json: { error: { code: 'validation_failed', message: 'The given data was invalid.', fields: { email: ['Enter your e-mail.'] } } },
      });
    });
    await signIn.getByLabel('Password').fill(PASSWORD);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await signIn.getByRole('alert').filter({ hasText: 'That was refused: see the message beside the field.' }).waitFor();
    await expect(signIn.getByLabel('E-mail').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(signIn.locator('#email-error').textContent()).resolves.toBe('Enter your e-mail.');
    await signIn.close();
    await p.context().close();
  });

  it("keeps a form button clear of the input above it, the log's Refresh as wide as its words, and a long key name from pushing Revoke off screen", async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Layout Ltd' } });
    const p = await joinedMember(org.body.id, 'lia@layout.example', 'Lia Layout');
    const box = async (locator: Locator) => (await locator.boundingBox())!;

    await goto(p, '/console/account');
    const input = await box(p.getByLabel('New password again'));
    const button = await box(p.getByRole('button', { name: 'Change the password' }));
    expect(button.y - (input.y + input.height)).toBeGreaterThanOrEqual(12);

    await goto(p, '/console/webhook');
    const refresh = await box(p.getByRole('button', { name: 'Refresh' }));
    const outcome = await box(p.getByLabel('Outcome'));
    expect(refresh.width).toBeLessThan(outcome.width / 1.5);

    const longName = 'k'.repeat(100);
    expect((await sessionCall(p, 'POST', '/api-keys', { name: longName })).status).toBe(201);
    await goto(p, '/console/api-keys');
    const revoke = p.getByRole('button', { name: new RegExp(`^Revoke the key “${longName}”`) });
    await revoke.waitFor();
    const wrap = await p
      .locator('.table-wrap')
      .evaluate((el) => ({ hidden: el.scrollWidth - el.clientWidth, right: el.getBoundingClientRect().right }));
    expect(wrap.hidden).toBe(0);
    expect((await box(revoke)).x + (await box(revoke)).width).toBeLessThanOrEqual(Math.min(wrap.right, 1280));
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBe(0);
    await expect(axeViolations(p)).resolves.toEqual([]);
    await p.context().close();
  });
});
