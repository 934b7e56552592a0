import { organizationWithOwner } from '../support/console-client';
import { call, PEOPLE_FIELDS, setupOrganization, startService, type Service } from '../support/service-harness';

/** GET /v1/transformations (docs/api.md) and the console's run list and usage over it. */
describe('run list', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let other: Awaited<ReturnType<typeof setupOrganization>>;
  const ids: string[] = [];
  const list = (query = '', token = org.apiKey) => call(`${svc.baseUrl}/v1/transformations${query}`, { token });

  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc);
    other = await setupOrganization(svc);
    for (const [i, body] of [
      { filename: 'people.csv', metadata: { batch: 'north' } },
      { filename: 'orders.xlsx' },
      { filename: 'people-2.csv', metadata: { batch: 'south' } },
    ].entries()) {
      const res = await call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, body: { schema_id: org.schemaId, ...body } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
      if (i < 2) await new Promise((r) => setTimeout(r, 15)); // distinct creation times
    }
    await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: other.apiKey,
      body: { schema_id: other.schemaId, filename: 'people.csv' },
    });
  });
  afterAll(() => svc?.stop());

  it('lists the run resources newest first, in the pagination envelope, with the page size asked', async () => {
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    const shown = await call(`${svc.baseUrl}/v1/transformations/${ids[0]}`, { token: org.apiKey });
    expect(all.body.data[2]).toEqual(shown.body);
    expect(all.body.meta).toMatchObject({ current_page: 1, per_page: 20, total: 3, from: 1, to: 3, last_page: 1 });
    const second = await list('?per_page=2&page=2');
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(second.body.meta).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3 });
    expect(second.body.links.prev).toBe(`${svc.baseUrl}/v1/transformations?page=1&per_page=2`);
  });

  it('filters by status, stage and creation time; never shows another organization’s runs', async () => {
    expect((await list('?status=awaiting_upload')).body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await list('?stage=final')).body.data).toEqual([]);
    const t1 = (await call(`${svc.baseUrl}/v1/transformations/${ids[1]}`, { token: org.apiKey })).body;
    expect(t1.id).toBe(ids[1]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(`?created_after=${future}`)).body.meta.total).toBe(0);
    expect((await list('?created_before=2000-01-01')).body.meta.total).toBe(0);
    expect((await list(`?created_before=${new Date().toISOString().slice(0, 10)}`)).body.meta.total).toBe(3);
    // Past the year 9999 (its ISO text "+010000-…" sorted before every run's).
    expect((await list('?created_before=9999-12-31T24:00:00Z')).body.meta.total).toBe(3);
    expect((await list('?created_before=9999-12-31T23:00:00-14:00')).body.meta.total).toBe(3);
    const others = await list('', other.apiKey);
    expect(others.body.meta.total).toBe(1);
    expect(ids).not.toContain(others.body.data[0].id);
  });

  it('keeps the filters in every page link, so the next page is a page of the same list', async () => {
    const since = '2000-01-01T00:00:00Z';
    const first = await list(`?status=awaiting_upload&created_after=${since}&per_page=2`);
    expect(first.body.meta).toMatchObject({ total: 3, last_page: 2, path: `${svc.baseUrl}/v1/transformations` });
    const next = new URL(first.body.links.next);
    expect(Object.fromEntries(next.searchParams)).toEqual({ status: 'awaiting_upload', created_after: since, page: '2', per_page: '2' });
    expect(first.body.meta.links.map((l: { url: string | null }) => l.url && new URL(l.url).searchParams.get('status'))).toEqual([
      null,
      'awaiting_upload',
      'awaiting_upload',
      'awaiting_upload',
    ]);
    const followed = await call(first.body.links.next, { token: org.apiKey });
    expect(followed.body.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    // A filter that matches nothing stays a list of nothing on its last page too.
    const none = await list('?stage=final&per_page=2');
    expect(new URL(none.body.links.last).searchParams.get('stage')).toBe('final');
  });

  it('answers 422 in the validation envelope for every bad value at once', async () => {
    const bad = await list('?status=done&stage=middle&created_after=yesterday&per_page=101&page=0');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(['created_after', 'page', 'per_page', 'stage', 'status']);
    expect((await list('?created_after=2026-02-01&created_before=2026-01-01')).body.error.fields.created_before).toBeDefined();
    // Days no month has are refused, not rolled over into the next month.
    for (const day of ['2026-11-31', '2026-02-29', '2026-04-31T10:00:00Z']) {
      const rolled = await list(`?created_after=${day}`);
      expect([rolled.status, Object.keys(rolled.body.error.fields)]).toEqual([422, ['created_after']]);
    }
    expect((await list('?created_before=2028-02-29')).status).toBe(200);
    // An empty value is a bad one: `?status=` answered the whole list, as if the filter had matched (a probe's finding).
    const empty = await list('?status=&stage=&created_after=&created_before=&page=&per_page=');
    expect([empty.status, Object.keys(empty.body.error.fields).sort()]).toEqual([
      422,
      ['created_after', 'created_before', 'page', 'per_page', 'stage', 'status'],
    ]);
    expect((await call(`${svc.baseUrl}/v1/transformations`)).status).toBe(401);
  });

  it('refuses a filter sent as a list (status[]=…, a repeated name) rather than answer the list unfiltered', async () => {
    for (const query of ['?status[]=failed', '?status[0]=failed', '?status=failed&status=completed', '?status%5B%5D=failed']) {
      const res = await list(query);
      expect([query, res.status, res.body.error?.fields]).toEqual([
        query,
        422,
        { status: ['The status field takes one value: send status= once.'] },
      ]);
    }
    const pages = await list('?per_page[]=1&created_after[]=2026-01-01');
    expect([pages.status, Object.keys(pages.body.error.fields).sort()]).toEqual([422, ['created_after', 'per_page']]);
    // Names no list reads are still ignored, bracketed or not (a client's cache-buster).
    expect((await list('?_=1&tag[]=x')).status).toBe(200);
  });

  it('the console lists the same runs with their file and creation time, filtered by input and text too', async () => {
    const { owner, org: consoleOrg } = await organizationWithOwner(svc, 'Console runs');
    const schema = (await owner.post('/schemas', { name: 'P', fields: PEOPLE_FIELDS })).body.data.id;
    for (const filename of ['alpha.csv', 'beta.csv'])
      await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: consoleOrg.api_key,
        body: { schema_id: schema, filename, metadata: { tag: filename === 'beta.csv' ? 'Q4' : 'Q3' } },
      });
    const page = await owner.get('/runs');
    expect(page.body.data.map((r: { filename: string }) => r.filename)).toEqual(['beta.csv', 'alpha.csv']);
    expect(page.body.data[0].created_at).toMatch(/^\d{4}-/);
    expect((await owner.get('/runs?q=ALPHA')).body.data.map((r: { filename: string }) => r.filename)).toEqual(['alpha.csv']);
    expect((await owner.get('/runs?q=q4')).body.data.map((r: { filename: string }) => r.filename)).toEqual(['beta.csv']);
    expect((await owner.get('/runs?input_source=raw')).body.data).toEqual([]);
    expect((await owner.get('/runs?input_source=fax')).status).toBe(422);
    expect((await owner.get('/runs?input_source=')).status).toBe(422);
    // Neither run has a review yet (no file came): the review's state finds none, and takes only its own values.
    expect((await owner.get('/runs?review_state=active')).body.data).toEqual([]);
    expect((await owner.get('/runs?review_state=ready')).body.error.fields).toHaveProperty('review_state');
    // The public API has no such filter: it ignores the name, as any other it does not read.
    expect((await call(`${svc.baseUrl}/v1/transformations?review_state=active`, { token: consoleOrg.api_key })).body.data).toHaveLength(2);
    // An empty search box is no search.
    expect((await owner.get('/runs?q=')).body.data).toHaveLength(2);

    const usage = (await owner.get('/usage')).body.data;
    expect(usage.quota).toEqual({ limit: null, used: 0, left: null });
    expect(usage.days).toHaveLength(30);
    expect(usage.days[29]).toMatchObject({ date: new Date().toISOString().slice(0, 10), other: 2, finished: 0 });
    expect(usage.days.slice(0, 29).every((d: { other: number }) => d.other === 0)).toBe(true);
  });
});
