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

/** Picklists: enum fields with allowed values; the reviewer maps each value of the column to one of them. */
describe('review picklists', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  const FIELDS = {
    email: { description: 'E-mail', data_type: 'email', is_required: true },
    tier: {
      description: 'Customer tier',
      descriptions: { de: 'Kundenstufe' },
      data_type: 'enum',
      is_required: false,
      allowed_values: [
        { value: 'platinum', label: 'Platinum' },
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ],
    },
  };
  const CSV = [
    'Mail,Tier',
    'a@x.org,Plat.',
    'b@x.org,gold',
    'c@x.org,Gold',
    'd@x.org,SILVER',
    'e@x.org,Platnum',
    'f@x.org,bronze',
    'g@x.org,gold',
  ].join('\n');

  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc, FIELDS);
  });
  afterAll(() => svc.stop());

  async function readyReview(body: Record<string, unknown> = {}) {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'tiers.csv', ...body },
    });
    await upload(run.body, CSV);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    await review.edit({ email: 'Mail', tier: 'Tier' });
    return { runId: run.body.id as string, review };
  }
  const picklist = (review: ReturnType<typeof reviewApi>, field: unknown) =>
    call(review.at('picklist-values'), { method: 'POST', body: { field } });

  it("lists the column's values with a suggestion each; a saved value mapping fixes them for the counts and the output", async () => {
    const { runId, review } = await readyReview({ locale: 'de' });
    const state = (await review.state()).body;
    expect(state.fields.find((f: { name: string }) => f.name === 'tier')).toMatchObject({
      description: 'Kundenstufe', // the schema's German description on a German review
      allowed_values: [
        { value: 'platinum', label: 'Platinum' },
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ],
    });
    expect((await review.problems()).body.problems_by_field.tier).toBe(5);

    const listed = await picklist(review, 'tier');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ distinct: 6, more: false });
    expect(Object.fromEntries(listed.body.values.map((v: any) => [v.value, [v.rows, v.suggestion, v.mapped_to]]))).toEqual({
      gold: [2, 'gold', null], // exact
      Gold: [1, 'gold', null], // ignoring case
      SILVER: [1, 'silver', null],
      'Plat.': [1, 'platinum', null], // an abbreviation
      Platnum: [1, 'platinum', null], // a spelling one letter away
      bronze: [1, null, null], // nothing close
    });

    const values = { 'Plat.': 'platinum', Gold: 'gold', SILVER: 'silver', Platnum: 'platinum' };
    expect((await review.fix('tier', { kind: 'picklist', values })).status).toBe(200);
    expect((await review.problems()).body.problems_by_field.tier).toBe(1);
    const again = await picklist(review, 'tier');
    expect(again.body.values.find((v: any) => v.value === 'Plat.').mapped_to).toBe('platinum');
    // A new mapping replaces the former one: bronze now goes to silver, Plat. is no longer mapped.
    await review.fix('tier', { kind: 'picklist', values: { bronze: 'silver' } });
    expect((await review.problems()).body.problems_by_field.tier).toBe(4);
    await review.fix('tier', { kind: 'picklist', values: { ...values, bronze: 'silver' } });

    await review.approve();
    const done = await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    const output = await (await fetch(done.download_url)).json();
    expect(output.map((r: { tier: string }) => r.tier)).toEqual(['platinum', 'gold', 'gold', 'silver', 'platinum', 'silver', 'gold']);
  });

  it('refuses picklists where they do not belong, and values outside the list', async () => {
    const { review } = await readyReview();
    const code = async (field: string, fix: unknown) => {
      const res = await review.fix(field, fix);
      return [res.status, res.body.error?.code];
    };
    expect(await code('email', { kind: 'picklist', values: { a: 'b' } })).toEqual([422, 'invalid_fix']);
    expect(await code('tier', { kind: 'picklist', values: { 'Plat.': 'diamond' } })).toEqual([422, 'invalid_fix']);
    expect((await picklist(review, 'email')).status).toBe(422);
  });

  it('checks allowed_values and descriptions when a schema is created', async () => {
    const create = (fields: object) =>
      call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, { token: ADMIN_TOKEN, body: { name: 's', fields } });
    const fields = async (f: object) => Object.keys((await create(f)).body.error?.fields ?? {});
    expect(await fields({ t: { description: '', data_type: 'enum', is_required: false } })).toEqual(['fields.t.allowed_values']);
    expect(await fields({ t: { description: '', data_type: 'string', is_required: false, allowed_values: [{ value: 'a' }] } })).toEqual([
      'fields.t.allowed_values',
    ]);
    expect(
      await fields({ t: { description: '', data_type: 'enum', is_required: false, allowed_values: [{ value: 'a' }, { value: 'a' }] } }),
    ).toEqual(['fields.t.allowed_values.1.value']);
    expect(await fields({ t: { description: '', data_type: 'string', is_required: false, descriptions: { xx: 'y' } } })).toEqual([
      'fields.t.descriptions.xx',
    ]);
    expect(
      (await create({ t: { description: 'T', data_type: 'enum', is_required: false, allowed_values: [{ value: 'a' }] } })).status,
    ).toBe(201);
  });
});
