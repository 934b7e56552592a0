import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './browser';
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
} from './service-harness';

/** What a review page suite in Chromium runs against: the service, an organization, the browser. */
export interface ReviewBrowserSuite {
  readonly svc: Service;
  readonly org: Awaited<ReturnType<typeof setupOrganization>>;
  readonly browser: Browser;
  /**
   * A file run of a schema of its own (an approved mapping is remembered per organization, schema and
   * headers), or of `schema_id`'s, its file uploaded and its review open; with `mapping`, saved before the page opens.
   */
  readyRun(file: {
    content: string | Buffer;
    filename?: string;
    body?: Record<string, unknown>;
    mapping?: Record<string, string | null>;
  }): Promise<{ id: string; review_url: string; schema_id: string }>;
  /** The review page in a context of its own (US English browser, light unless said), once `ready` (a selector) shows. */
  openPage(url: string, options: { width?: number; colorScheme?: 'light' | 'dark'; ready: string }): Promise<Page>;
}

/** The id of the element that has the keyboard ('' when none has). */
export const focusedId = (page: Page): Promise<string> => page.evaluate(() => document.activeElement?.id ?? '');

/** Starts the service, an organization and Chromium before the suite's tests, and stops them after. */
export function reviewBrowserSuite(): ReviewBrowserSuite {
  let svc: Service;
  let org: ReviewBrowserSuite['org'];
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
  return {
    get svc() {
      return svc;
    },
    get org() {
      return org;
    },
    get browser() {
      return browser;
    },
    async openPage(url, { width = 1100, colorScheme = 'light', ready }) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(url);
      await page.locator(ready).waitFor();
      return page;
    },
    async readyRun({ content, filename = 'people.csv', body = {}, mapping }) {
      const schemaId =
        (body.schema_id as string | undefined) ??
        (
          await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
            token: ADMIN_TOKEN,
            body: { name: 'People', fields: PEOPLE_FIELDS },
          })
        ).body.data.id;
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { filename, ...body, schema_id: schemaId },
      });
      expect(created.status).toBe(201);
      expect((await upload(created.body, content)).status).toBe(200);
      await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
      if (mapping) expect((await reviewApi(created.body.review_url).edit(mapping)).status).toBe(200);
      return created.body as { id: string; review_url: string; schema_id: string };
    },
  };
}
