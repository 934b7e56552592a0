import { DIRECTORY, type Directory } from '@app/directory';
import { headersKey } from '@app/domain';
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
        { value: 'silver', label: 'Silver', labels: { de: 'Silber', fr: 'Argent' } },
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
        { value: 'silver', label: 'Silber' }, // the German label; the others fall back to `label`
      ],
    });
    expect((await review.problems()).body.problems_by_field.tier).toBe(5);

    const listed = await picklist(review, 'tier');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ distinct: 6, more: false });
    expect(listed.body.allowed_values).toEqual(state.fields.find((f: { name: string }) => f.name === 'tier').allowed_values);
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

  it('remembers an approved mapping with its picklist values for the next file with the same headers, in any order', async () => {
    const run = async (csv: string) => {
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'again.csv' },
      });
      await upload(created.body, csv);
      await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
      return { id: created.body.id as string, review: reviewApi(created.body.review_url) };
    };
    const first = await run('Contact,Level\na@x.org,Plat.\nb@x.org,Gold\n');
    // Names our heuristic cannot match: the reviewer maps them, and the values of the picklist.
    expect((await first.review.state()).body.mapping_rule).toEqual({ email: null, tier: null });
    await first.review.edit({ email: 'Contact', tier: 'Level' });
    await first.review.fix('tier', { kind: 'picklist', values: { 'Plat.': 'platinum', Gold: 'gold' } });
    await first.review.approve();
    await waitForRun(svc, org.apiKey, first.id, (r) => r.status === 'completed' && r.stage === 'final');
    // The mapping consumer remembers it on its own lane: wait until it has.
    const directory = svc.app.get<Directory>(DIRECTORY);
    const schema = org.schemaId;
    for (let i = 0; !(await directory.findRememberedMapping(org.orgId, schema, headersKey(['Contact', 'Level']))); i++) {
      if (i > 200) throw new Error('the approved mapping was not remembered');
      await new Promise((r) => setTimeout(r, 25));
    }

    // The same columns in another order: mapped as approved, the picklist values in force, and the reviewer told.
    const second = await run('Level,Contact\nPlat.,c@x.org\nsilver,d@x.org\n');
    const state = (await second.review.state()).body;
    expect(state.mapping_rule).toEqual({ email: 'Contact', tier: 'Level' });
    expect(state.notices.map((n: { code: string }) => n.code)).toEqual(['mapping_remembered']);
    expect(state.value_fixes.map((f: { fix: object }) => f.fix)).toEqual([
      { kind: 'picklist', values: { 'Plat.': 'platinum', Gold: 'gold' } },
    ]);
    expect((await second.review.preview()).body.rows[0].tier).toEqual({ value: 'platinum', problem: null });
    // It can be changed like any other: the remembered picklist values are undone.
    expect((await second.review.undo()).body.value_fixes).toEqual([]);

    // Other columns: nothing remembered.
    const third = await run('Contact,Level,Extra\na@x.org,gold,1\n');
    expect((await third.review.state()).body.notices).toEqual([]);
  });

  it('writes a value with blanks around it as its allowed value, the same in JSON and CSV output (a probe found CSV kept the blanks)', async () => {
    const source = 'Mail,Tier\na@x.org, gold \nb@x.org,"  silver"\nc@x.org,platinum\n';
    const output = async (outputFormat: 'json' | 'csv') => {
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'blanks.csv', output_format: outputFormat },
      });
      await upload(run.body, source);
      await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
      const review = reviewApi(run.body.review_url);
      await review.edit({ email: 'Mail', tier: 'Tier' });
      // Allowed values once trimmed: no problem, and the preview shows what the output will hold.
      expect((await review.problems()).body.problems_by_field.tier).toBe(0);
      expect((await review.preview()).body.rows.map((r: { tier: { value: string } }) => r.tier.value)).toEqual([
        'gold',
        'silver',
        'platinum',
      ]);
      expect((await review.approve()).status).toBe(200);
      const done = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.status === 'completed' && r.stage === 'final');
      return (await fetch(done.download_url)).text();
    };
    const json = JSON.parse(await output('json')) as { tier: string }[];
    expect(json.map((r) => r.tier)).toEqual(['gold', 'silver', 'platinum']);
    const csv = (await output('csv')).split('\r\n');
    expect(csv).toEqual(['email,tier', 'a@x.org,gold', 'b@x.org,silver', 'c@x.org,platinum', '']);
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
      await fields({
        t: {
          description: '',
          data_type: 'enum',
          is_required: false,
          allowed_values: [{ value: 'a', labels: { de: 'A', xx: 'y', fr: 3 } }],
        },
      }),
    ).toEqual(['fields.t.allowed_values.0.labels.xx', 'fields.t.allowed_values.0.labels.fr']);
    const withLabels = await create({
      t: { description: 'T', data_type: 'enum', is_required: false, allowed_values: [{ value: 'a', labels: { de: 'Ä' } }] },
    });
    expect(withLabels.body.data.fields.t.allowed_values).toEqual([{ value: 'a', label: null, labels: { de: 'Ä' } }]);
    expect(
      (await create({ t: { description: 'T', data_type: 'enum', is_required: false, allowed_values: [{ value: 'a' }] } })).status,
    ).toBe(201);
  });
});
