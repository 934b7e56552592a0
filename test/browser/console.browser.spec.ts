/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchBrowser, screenshot } from '../support/browser';
import { inviteByOperator, PASSWORD } from '../support/console-client';
import { WebhookReceiver } from '../support/webhook-receiver';
import { ADMIN_TOKEN, call, reviewApi, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * The customer console in a real browser (Debian's Chromium through playwright-core), as a new
 * customer's people use it: by the accessible names of what they see, by keyboard where it
 * matters, at phone width and on a desktop, in light and dark, with axe-core on every page.
 */

const FAST = { WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_RETRY_DELAYS_MS: '60', WEBHOOK_MAX_ATTEMPTS: '2' };
const PAGES = ['runs', 'schemas', 'providers', 'webhook', 'api-keys', 'usage', 'members', 'audit', 'account'];

describe('customer console in Chromium', () => {
  let svc: Service;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let orgId: string;
  let ownerEmail: string;
  let owner: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService(FAST);
    browser = await launchBrowser();
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Acme Imports' } });
    orgId = org.body.id;
    ownerEmail = 'olivia@acme.example';
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.stop();
  });

  const goto = async (p: Page, path: string) => {
    await p.goto(`${svc.baseUrl}${path}`);
    await p.getByRole('heading', { level: 1 }).waitFor();
  };
  const status = (p: Page) => p.getByRole('status');

  it('the owner opens the invitation, chooses a password and lands signed in', async () => {
    const invitation = await inviteByOperator(svc, orgId, ownerEmail);
    await page.goto(invitation.url);
    await page.getByRole('heading', { name: 'Join your organization' }).waitFor();
    await expect(page.getByText('You are invited to Acme Imports as Owner.', { exact: false }).isVisible()).resolves.toBe(true);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-invitation');
    await page.getByLabel('Your name').fill('Olivia Owner');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Password again').fill('short');
    await page.getByRole('button', { name: 'Join and sign in' }).click();
    // The server's rule, beside the field.
    await page.getByText('The password must be at least 12 characters long.').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
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
    await again.close();
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
    await page.getByRole('button', { name: 'Add a field' }).click();
    const second = page.getByRole('group', { name: /^Field 2/ });
    await second.getByLabel('Field name').fill('9bad');
    await second.getByLabel('Description', { exact: true }).fill('Tier');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page.getByRole('alert').filter({ hasText: 'see the messages beside the fields' }).waitFor();
    await expect(second.locator('.field-error').first().textContent()).resolves.toContain('A field name must start with a letter');
    await second.getByLabel('Field name').fill('tier');
    await second.getByLabel('Data type').selectOption('enum');
    await second.getByLabel('Allowed values').fill('gold | Gold | de=Gold\nsilver | Silver');
    await page.getByRole('button', { name: 'Create the schema' }).click();
    await page.getByRole('heading', { name: 'Schema People', level: 1 }).waitFor();
    await expect(status(page).textContent()).resolves.toContain('Schema People saved.');
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-schema');
    const schemaId = new URL(page.url()).pathname.split('/').pop()!;

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

  it('issues a key shown once; it works on the public API until it is revoked', async () => {
    await goto(page, '/console/api-keys');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^tsk_/);
    expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key })).status).toBe(200);
    await screenshot(page, 'console-api-key-issued');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect(page.locator('#new-key').count()).resolves.toBe(0);
    await page.getByRole('button', { name: `Revoke the key ${key.slice(4, 12)}` }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke the key ${key.slice(4, 12)}?` });
    await dialog.getByRole('button', { name: 'Revoke it' }).click();
    await status(page)
      .getByText(`The key ${key.slice(4, 12)} is revoked.`)
      .waitFor();
    expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key })).status).toBe(401);
  });

  it('reveals and rotates the secret by keyboard alone; the next webhook carries the new one', async () => {
    await goto(page, '/console/webhook');
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks?case=browser`);
    await page.getByRole('button', { name: 'Save the URL' }).click();
    await status(page).getByText('The default webhook URL is saved.').waitFor();

    await page.getByRole('button', { name: 'Reveal the secret' }).focus();
    await page.keyboard.press('Enter');
    const shown = page.locator('code.secret');
    await page.locator('code.secret', { hasText: 'whsec_' }).waitFor();
    const before = (await shown.textContent())!;
    // Tab to the rotate button, open the confirmation, which says what changes, and confirm with the keyboard.
    await page.getByRole('button', { name: 'Rotate the secret' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rotate the webhook secret?' });
    await dialog.getByText('the old one stops working at once', { exact: false }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Rotate it');
    await page.keyboard.press('Enter');
    await status(page).getByText('The secret was rotated.', { exact: false }).waitFor();
    await page.locator('code.secret', { hasNotText: before }).waitFor();
    const after = (await shown.textContent())!;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-webhook');

    await page.getByRole('button', { name: 'Send a test event' }).click();
    await status(page).getByText('The test event was delivered', { exact: false }).waitFor();
    const test = receiver.received.filter((r) => r.path.includes('case=browser')).pop()!;
    expect(test.headers['x-service-webhook-secret']).toBe(after);
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
    const runId = created.body.id as string;
    await upload(created.body, 'Email,Tier\nada@example.com,gold\n');
    const ready = await waitForRun(svc, issued, runId, (r) => r.review_state === 'active');
    await reviewApi(ready.review_url).approve();
    await waitForRun(svc, issued, runId, (r) => r.notification_status === 'failed');
    receiver.fallback = 'ok';

    await goto(page, '/console/webhook');
    await page.getByLabel('Outcome').selectOption('failed');
    await page
      .getByRole('link', { name: runId.slice(0, 8) })
      .first()
      .click();
    await page.getByRole('heading', { name: `Run ${runId.slice(0, 8)}`, level: 1 }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Output produced: 1 rows as json' }).waitFor();
    await page.getByRole('link', { name: 'Download the output' }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-run-failed-delivery');
    const before = receiver.for(runId).length;
    await page
      .getByRole('button', { name: /^Send again/ })
      .first()
      .click();
    await status(page).getByText('will be sent again', { exact: false }).waitFor();
    for (const deadline = Date.now() + 10_000; receiver.for(runId).length === before;) {
      if (Date.now() > deadline) throw new Error('the re-sent delivery never arrived');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(receiver.for(runId).pop()!.headers['x-service-id']).toBe(runId);
    await page
      .getByRole('cell', { name: /Delivered/ })
      .first()
      .waitFor({ timeout: 10_000 });
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
    await expect(vp.getByRole('button', { name: 'Issue a key' }).count()).resolves.toBe(0);
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
    await viewer.close();
  });

  it('signs out, and signs in again by keyboard alone; a wrong password says so without telling whether the e-mail exists', async () => {
    await goto(page, '/console/account');
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await expect(axeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'console-sign-in');
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
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
  });

  it.each(['light', 'dark'] as const)(
    'every page passes axe-core in %s, and fits 360 px without sideways scrolling',
    async (scheme) => {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 800 });
        for (const name of PAGES) {
          await goto(page, `/console/${name}`);
          await page.waitForLoadState('networkidle');
          // Each page as a signed-in member sees it (not the sign-in form in its place).
          await expect(page.getByRole('navigation', { name: 'Console' }).isVisible()).resolves.toBe(true);
          const violations = await axeViolations(page);
          expect({ page: name, width, violations }).toEqual({ page: name, width, violations: [] });
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect({ page: name, width, overflow }).toEqual({ page: name, width, overflow: 0 });
          if (width === 360 || name === 'runs' || name === 'usage') await screenshot(page, `console-${name}-${scheme}-${width}`);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 900 });
    },
    120_000,
  );
});
