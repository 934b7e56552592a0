import { DIRECTORY, type Directory } from '@app/directory';
import { headersKey, noProblemsByKind, type CellProblem } from '@app/domain';
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

/** The JSON calls behind the review page: preview, whole-file problem count, stale-save refusal. */
/** Every kind of problem, zero unless named. */
const kinds = (counts: Partial<Record<CellProblem, number>>) => ({ ...noProblemsByKind(), ...counts });

describe('review page API', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());

  /** 50 rows; every 7th lacks the required email, every 10th has a non-integer age. */
  const rows = Array.from({ length: 50 }, (_, k) => k + 1);
  const csv = ['E-mail,Years', ...rows.map((i) => `${i % 7 === 0 ? '' : ` U${i}@X.org `},${i % 10 === 0 ? 'old' : 20 + i}`)].join('\n');
  const expectedProblemRows = rows.filter((i) => i % 7 === 0 || i % 10 === 0).length;

  async function readyReview() {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv' },
    });
    expect((await upload(run.body, csv)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    return reviewApi(run.body.review_url);
  }

  it('previews the first 20 rows after transformations, with each failing cell marked', async () => {
    const review = await readyReview();
    const res = await review.preview({ email: 'E-mail', age: 'Years' });
    expect(res.status).toBe(200);
    expect(res.body.rows).toHaveLength(20);
    expect(res.body.rows[0]).toEqual({
      email: { value: 'u1@x.org', problem: null }, // trimmed and lower-cased by the field's transformations
      first_name: { value: null, problem: null },
      age: { value: '21', problem: null },
      born: { value: null, problem: null },
    });
    expect(res.body.rows[6].email).toEqual({ value: null, problem: 'required' });
    expect(res.body.rows[9].age).toEqual({ value: 'old', problem: 'type' });
    // Nothing was saved by previewing.
    expect((await review.state()).body.mapping_version).toBe(1);
  });

  it('previews values as the run delivers them: typed for JSON output, as read for CSV; and what each column holds', async () => {
    const shown = async (output_format: string) => {
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'typed.csv', output_format },
      });
      await upload(run.body, 'E-mail,Years\na@x.org,037\nb@x.org,\nc@x.org,40\nd@x.org,41\n');
      await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
      return (await reviewApi(run.body.review_url).preview({ email: 'E-mail', age: 'Years' })).body;
    };
    const json = await shown('json');
    expect(json.rows[0].age).toEqual({ value: '37', problem: null });
    expect(json.column_samples).toEqual({ 'E-mail': ['a@x.org', 'b@x.org', 'c@x.org'], Years: ['037', '40', '41'] });
    expect((await shown('csv')).rows[0].age).toEqual({ value: '037', problem: null });
  });

  it('matches the columns as approved last time when the reviewer picks the same header row by hand again', async () => {
    // A report whose title row has two values: no title the read finds, so the reviewer picks row 2 each month.
    const file = 'Sales report,March\nMail address,Yrs\na@x.org,30\nb@x.org,31\n';
    const pickHeader = async () => {
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'report.csv' },
      });
      await upload(run.body, file);
      await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
      const review = reviewApi(run.body.review_url);
      const chosen = await call(review.at('header'), { method: 'POST', body: { input_has_header: true, rows_above_header: 1 } });
      expect(chosen.status).toBe(200);
      expect(chosen.body.source_headers).toEqual(['Mail address', 'Yrs']);
      return { run: run.body, review, chosen: chosen.body };
    };
    const first = await pickHeader();
    // The first time, "Mail address" and "Yrs" are no names the heuristic reads: the reviewer maps them, and approves.
    expect(first.chosen.mapping_rule).toMatchObject({ email: null, age: null });
    expect(first.chosen.notices).not.toContainEqual(expect.objectContaining({ code: 'mapping_remembered' }));
    expect((await first.review.edit({ email: 'Mail address', age: 'Yrs' })).status).toBe(200);
    expect((await first.review.approve()).status).toBe(200);
    const directory = svc.app.get<Directory>(DIRECTORY);
    for (let i = 0; !(await directory.findRememberedMapping(org.orgId, org.schemaId, headersKey(['Mail address', 'Yrs']))); i++) {
      if (i > 200) throw new Error('the approved mapping was not remembered');
      await new Promise((r) => setTimeout(r, 25));
    }
    // Next month: the same pick finds the columns as they were approved.
    const second = await pickHeader();
    expect(second.chosen.mapping_rule).toMatchObject({ email: 'Mail address', age: 'Yrs' });
    // And the page says so (the review's notice), not that each field kept its column by place.
    expect(second.chosen.notices).toContainEqual(expect.objectContaining({ code: 'mapping_remembered' }));
  });

  it('takes the first row as the header when the reviewer says so, and delivers the rows after it', async () => {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'dup.csv' },
    });
    // Before the file is uploaded there is no first row to read: the review is not ready (not the 410 of a file gone).
    for (const value of [true, false]) {
      const early = await call(reviewApi(run.body.review_url).at('header'), { method: 'POST', body: { input_has_header: value } });
      expect([early.status, early.body.error.code]).toEqual([409, 'review_not_ready']);
    }
    await upload(run.body, 'E-mail,Years,\na@x.org,30,1\nb@x.org,31,2\n');
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.state()).body).toMatchObject({ input_has_header: false, total_rows: 3, header_choice: true });
    const header = (value: unknown) => call(review.at('header'), { method: 'POST', body: { input_has_header: value } });
    const chosen = await header(true);
    expect(chosen.status).toBe(200);
    // A name left empty over values (why the file was read without a header) is named by its place; the mapping is suggested again.
    expect(chosen.body).toMatchObject({
      input_has_header: true,
      source_headers: ['E-mail', 'Years', 'column_3'],
      total_rows: 2,
      mapping_version: 2,
      mapping_rule: { email: 'E-mail' },
    });
    expect((await header(true)).body.mapping_version).toBe(2); // nothing to change
    expect((await header('yes')).status).toBe(422);
    await review.edit({ email: 'E-mail', age: 'column_3' });
    await review.approve();
    const done = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done).toMatchObject({ input_has_header: true, total_rows: 2 });
    const output = await (await fetch(done.download_url)).json();
    expect(output.map((r: { email: string; age: number }) => [r.email, r.age])).toEqual([
      ['a@x.org', 1],
      ['b@x.org', 2],
    ]);

    // The header choice is remembered with the mapping, by the names the reviewer found (not column_1..3, which every
    // headerless file of three columns reads as): the next such file opens with both.
    const directory = svc.app.get<Directory>(DIRECTORY);
    for (let i = 0; !(await directory.findRememberedMapping(org.orgId, org.schemaId, headersKey(['E-mail', 'Years', 'column_3']))); i++) {
      if (i > 200) throw new Error('the approved mapping was not remembered');
      await new Promise((r) => setTimeout(r, 25));
    }
    const again = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'dup.csv' },
    });
    await upload(again.body, 'E-mail,Years,\nc@x.org,32,3\n');
    await waitForRun(svc, org.apiKey, again.body.id, (r) => r.review_state === 'active');
    expect((await reviewApi(again.body.review_url).state()).body).toMatchObject({
      input_has_header: true,
      source_headers: ['E-mail', 'Years', 'column_3'],
      total_rows: 1,
      mapping_rule: { email: 'E-mail', age: 'column_3' },
      notices: [expect.objectContaining({ code: 'mapping_remembered' })],
    });
    // A file of three columns without a header, whose first row reads otherwise: its first record stays a record.
    const other = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'other.csv' },
    });
    await upload(other.body, 'zoe@y.org,25,7\nyan@y.org,26,8\n');
    await waitForRun(svc, org.apiKey, other.body.id, (r) => r.review_state === 'active');
    const otherState = (await reviewApi(other.body.review_url).state()).body;
    expect(otherState).toMatchObject({ input_has_header: false, source_headers: ['column_1', 'column_2', 'column_3'], total_rows: 2 });
    expect(otherState.notices).not.toContainEqual(expect.objectContaining({ code: 'mapping_remembered' }));
    // Nor does a header remembered by column_1..3, as it was before 2026-12-03.
    await directory.rememberMapping({
      organization_id: org.orgId,
      schema_id: org.schemaId,
      headers_key: headersKey(['column_1', 'column_2', 'column_3']),
      mapping_rule: { email: 'E-mail', age: 'column_3' },
      picklists: {},
      input_has_header: true,
      run_id: run.body.id,
      approved_at: new Date().toISOString(),
    });
    const third = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'other.csv' },
    });
    await upload(third.body, 'zoe@y.org,25,7\nyan@y.org,26,8\n');
    await waitForRun(svc, org.apiKey, third.body.id, (r) => r.review_state === 'active');
    expect((await reviewApi(third.body.review_url).state()).body).toMatchObject({ input_has_header: false, total_rows: 2 });
    // The caller's input_has_header stands over a remembered header choice: the file said to have no header keeps its
    // first row as a record (the remembered choice would take it as the names and leave it out of the output).
    const said = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'dup.csv', input_has_header: false },
    });
    await upload(said.body, 'E-mail,Years,\nd@x.org,33,4\n');
    await waitForRun(svc, org.apiKey, said.body.id, (r) => r.review_state === 'active');
    const saidState = (await reviewApi(said.body.review_url).state()).body;
    expect(saidState).toMatchObject({ input_has_header: false, source_headers: ['column_1', 'column_2', 'column_3'], total_rows: 2 });
    expect(saidState.notices).not.toContainEqual(expect.objectContaining({ code: 'mapping_remembered' }));
  });

  it('gives a field added to the schema since no column the remembered mapping already feeds another field from', async () => {
    const schemas = `${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`;
    const field = (description: string) => ({ description, data_type: 'string', is_required: false });
    const schema = await call(schemas, {
      token: ADMIN_TOKEN,
      body: { name: 'Swapped', fields: { email: field('E-mail'), name: field('Name') } },
    });
    const file = 'E-Mail,Name\nada@x.com,Ada\n';
    const first = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schema.body.data.id, filename: 'swap.csv' },
    });
    await upload(first.body, file);
    await waitForRun(svc, org.apiKey, first.body.id, (r) => r.review_state === 'active');
    // The reviewer swaps the columns on purpose, and approves.
    expect((await reviewApi(first.body.review_url).approve({ email: 'Name', name: 'E-Mail' })).status).toBe(200);
    const directory = svc.app.get<Directory>(DIRECTORY);
    for (let i = 0; !(await directory.findRememberedMapping(org.orgId, schema.body.data.id, headersKey(['E-Mail', 'Name']))); i++) {
      if (i > 200) throw new Error('the approved mapping was not remembered');
      await new Promise((r) => setTimeout(r, 25));
    }
    // The schema's email field is renamed mail: a field the remembered mapping does not name.
    const renamed = await call(`${schemas}/${schema.body.data.id}`, {
      token: ADMIN_TOKEN,
      method: 'PUT',
      body: { name: 'Swapped', fields: { mail: field('E-mail'), name: field('Name') } },
    });
    expect(renamed.status).toBe(200);
    const again = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schema.body.data.id, filename: 'swap.csv' },
    });
    await upload(again.body, file);
    await waitForRun(svc, org.apiKey, again.body.id, (r) => r.review_state === 'active');
    // "E-Mail" feeds name, as remembered; mail is not given it too (the Name column would have been lost).
    expect((await reviewApi(again.body.review_url).state()).body.mapping_rule).toEqual({ mail: null, name: 'E-Mail' });
  });

  it('counts rows with problems across the whole file, per field too, for any mapping', async () => {
    const review = await readyReview();
    const both = await review.problems({ email: 'E-mail', age: 'Years' });
    expect(both.body).toEqual({
      status: 'counted',
      rows_checked: 50,
      rows_with_problems: expectedProblemRows,
      problems_by_field: { email: 7, first_name: 0, age: 5, born: 0 },
      rows_by_kind: kinds({ required: 7, type: 5 }),
      problems_by_field_and_kind: {
        email: kinds({ required: 7 }),
        first_name: kinds({}),
        age: kinds({ type: 5 }),
        born: kinds({}),
      },
    });
    const emailOnly = await review.problems({ email: 'E-mail', age: null });
    expect(emailOnly.body.rows_with_problems).toBe(7);
    const none = await review.problems({ email: null, age: null });
    expect(none.body.rows_with_problems).toBe(50);
  });

  it('lists the rows with problems over the whole file, a page at a time, filtered by field and kind, each cell with its reason', async () => {
    const review = await readyReview();
    const mapping = { email: 'E-mail', age: 'Years' };
    const all = await review.problemRows({ mapping_rule: mapping, per_page: 5 });
    expect(all.status).toBe(200);
    expect(all.body.matching).toBe(expectedProblemRows);
    expect(all.body.rows_checked).toBe(50);
    expect(all.body.rows.map((r: { row: number }) => r.row)).toEqual([7, 10, 14, 20, 21]);
    expect(all.body.rows[1].cells).toEqual({
      email: { value: 'u10@x.org', problem: null },
      first_name: { value: null, problem: null },
      age: { value: 'old', problem: 'type' },
      born: { value: null, problem: null },
    });
    const second = await review.problemRows({ mapping_rule: mapping, per_page: 5, page: 2 });
    expect(second.body.rows.map((r: { row: number }) => r.row)).toEqual([28, 30, 35, 40, 42]);

    const ages = await review.problemRows({ mapping_rule: mapping, field: 'age', kind: 'type' });
    expect(ages.body.matching).toBe(5);
    expect(ages.body.rows.map((r: { row: number }) => r.row)).toEqual([10, 20, 30, 40, 50]);
    const missingAges = await review.problemRows({ mapping_rule: mapping, field: 'age', kind: 'required' });
    expect(missingAges.body).toMatchObject({ matching: 0, rows: [] });
    const missingEmails = await review.problemRows({ mapping_rule: mapping, kind: 'required' });
    expect(missingEmails.body.rows.map((r: { row: number }) => r.row)).toEqual([7, 14, 21, 28, 35, 42, 49]);

    const bad = await review.problemRows({ mapping_rule: mapping, field: 'nope', kind: 'odd', page: 0, per_page: 500 });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(['kind', 'page', 'per_page']);
    const unknownField = await review.problemRows({ mapping_rule: mapping, field: 'nope' });
    expect(unknownField.status).toBe(422);
    expect(unknownField.body.error.fields.field[0]).toContain('nope');
    // A name every object inherits is no field of the schema either (it was read from the count's prototype: 503).
    for (const inherited of ['constructor', 'toString', '__proto__']) {
      const answer = await review.problemRows({ mapping_rule: mapping, field: inherited });
      expect({ inherited, status: answer.status }).toEqual({ inherited, status: 422 });
    }
  });

  it('answers a count asked without waiting with its progress, and with the count once it is done', async () => {
    const review = await readyReview();
    const mapping = { email: 'E-mail', age: 'Years' };
    const first = await review.problems(mapping, false);
    expect(first.status).toBe(200);
    expect(['counting', 'counted']).toContain(first.body.status);
    let latest = first.body;
    for (let i = 0; i < 100 && latest.status !== 'counted'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      latest = (await review.problems(mapping, false)).body;
    }
    expect(latest).toMatchObject({ status: 'counted', rows_checked: 50, rows_with_problems: expectedProblemRows });
    // "false" as a string would have waited, as anything but the boolean did: it is refused.
    for (const wait of ['false', 0, 'no']) {
      const bad = await call(review.at('problems'), { method: 'POST', body: { mapping_rule: mapping, wait } });
      expect({ wait, status: bad.status, fields: bad.body.error.fields }).toEqual({
        wait,
        status: 422,
        fields: { wait: ['wait must be true or false.'] },
      });
    }
  });

  it('refuses a preview of a mapping that names unknown fields or columns', async () => {
    const review = await readyReview();
    const res = await review.preview({ email: 'No such column' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.fields.mapping_rule[0]).toContain('No such column');
  });

  it('refuses a save made on a stale mapping version with 409 mapping_conflict, and keeps the newer edit', async () => {
    const review = await readyReview();
    const first = await review.edit({ email: 'E-mail', age: 'Years' }, 1);
    expect(first.status).toBe(200);
    expect(first.body.mapping_version).toBe(2);
    const stale = await review.edit({ email: null, age: null }, 1);
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'mapping_conflict', type: 'conflict' });
    const staleApproval = await call(review.at('approve'), { method: 'POST', body: { expected_mapping_version: 1 } });
    expect(staleApproval.status).toBe(409);
    expect((await review.state()).body.mapping_rule).toMatchObject({ email: 'E-mail', age: 'Years' });
    const bad = await review.edit({ email: 'E-mail' }, -3);
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields.expected_mapping_version).toBeDefined();
  });

  it('refuses a body that is not a JSON object with 422 on body: an approval sent garbled approves nothing', async () => {
    const review = await readyReview();
    for (const raw of ['"notanobject"', '42', '[1,2]', 'null'])
      for (const action of ['approve', 'cancel', 'fixes', 'preview']) {
        const res = await call(review.at(action), { method: 'POST', raw });
        expect([action, raw, res.status, res.body.error?.fields]).toEqual([
          action,
          raw,
          422,
          { body: ['The request body must be a JSON object.'] },
        ]);
      }
    expect((await review.state()).body).toMatchObject({ review_approved_at: null, review_canceled_at: null });
    // No body at all still means "the defaults": the current mapping is approved.
    expect((await call(review.at('approve'), { method: 'POST' })).status).toBe(200);
  });

  it('bounds a body as every API does (32 levels, 2,000 object keys), once the signature is checked: 422 naming where', async () => {
    // A probe's finding: an approval with 1,500 members of junk, or 100 levels of it, approved.
    const review = await readyReview();
    const deep = `{"mapping_rule":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`;
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`junk_${i}`, i])));
    for (const action of ['approve', 'cancel', 'fixes', 'fixes/undo', 'preview', 'problems', 'sheet', 'header'])
      for (const raw of [deep, wide]) {
        const res = await call(review.at(action), { method: 'POST', raw });
        expect([action, res.status, res.body.error?.code]).toEqual([action, 422, 'validation_failed']);
      }
    const deepRefused = await call(review.at('approve'), { method: 'POST', raw: deep });
    expect(deepRefused.body.error.fields).toEqual({
      [`mapping_rule${'.a'.repeat(31)}`]: ['Objects and arrays must not be nested more than 32 levels deep.'],
    });
    const wideRefused = await call(review.at('approve'), { method: 'POST', raw: wide });
    expect(wideRefused.body.error.fields).toEqual({ body: ['The request body must not have more than 2000 object keys in total.'] });
    expect((await review.state()).body).toMatchObject({ review_approved_at: null, review_canceled_at: null });
    // A stranger is refused for the signature first, whatever the body.
    const forged = reviewApi(`${svc.baseUrl}/review/${(await review.state()).body.run_id}?signature=forged`);
    expect((await call(forged.at('approve'), { method: 'POST', raw: wide })).status).toBe(403);
    // Within the bounds (2,000 keys, the members the page sends among them), the approval goes through.
    const withinBounds = JSON.stringify({
      ...Object.fromEntries(Array.from({ length: 1999 }, (_, i) => [`extra_${i}`, i])),
      rows_with_problems: 'deliver',
    });
    expect((await call(review.at('approve'), { method: 'POST', raw: withinBounds })).status).toBe(200);
  });

  it("answers the page's calls only under a valid signature", async () => {
    const review = await readyReview();
    const state = await review.state();
    const forged = reviewApi(`${svc.baseUrl}/review/${state.body.run_id}?signature=forged`);
    for (const res of [await forged.preview({}), await forged.problems({}), await forged.state()]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('invalid_signature');
    }
  });
});

describe('legacy encodings through the whole run', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc, {
      name: { description: 'Name', data_type: 'string', is_required: true },
      city: { description: 'City', data_type: 'string', is_required: false },
    });
  });
  afterAll(() => svc.stop());

  it('reads a Windows-1250 (Polish) semicolon file, tells the reviewer its encoding, and writes correct UTF-8', async () => {
    const iconv = (await import('iconv-lite')).default;
    const bytes = iconv.encode('Name;City\r\nZażółć Gęślą;Łódź\r\nJaźń;Kraków\r\n', 'windows-1250');
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'osoby.csv', output_format: 'csv' },
    });
    expect((await upload(run.body, bytes)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.state()).body.encoding).toBe('windows-1250');
    expect((await review.preview()).body.rows[0]).toEqual({
      name: { value: 'Zażółć Gęślą', problem: null },
      city: { value: 'Łódź', problem: null },
    });
    await review.approve();
    const done = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.stage === 'final' && r.status === 'completed');
    const csv = Buffer.from(await (await fetch(done.download_url)).arrayBuffer()).toString('utf8');
    expect(csv).toBe('name,city\r\nZażółć Gęślą,Łódź\r\nJaźń,Kraków\r\n');
  });

  it('fails a file named .csv that is a ZIP archive before parsing, with its own code', async () => {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'data.csv' },
    });
    await upload(run.body, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0, 1, 2, 3]));
    const failed = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.status === 'failed');
    expect(failed.error).toMatchObject({ code: 'source_file_content_mismatch', type: 'source_file', stage: 'ingestion' });
    expect(failed.error.message).toContain('ZIP');
  });
});

/** After `review_expires_at` the link opens nothing but the expired state (docs/security.md, "Expiry and retention"). */
describe('review link after its deadline', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService({ REVIEW_TTL_SECONDS: '3' });
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());

  const csv = 'E-mail,Years\nsecret.person@x.org,41\n';
  const passed = async (iso: string) => new Promise((r) => setTimeout(r, Math.max(0, Date.parse(iso) - Date.now()) + 150));

  async function openReview() {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people-private.csv' },
    });
    expect((await upload(run.body, csv)).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    return { id: run.body.id as string, ready, review: reviewApi(run.body.review_url) };
  }

  /** Every call that reads or changes the run's data. */
  const dataCalls = (review: ReturnType<typeof reviewApi>) => [
    review.preview({ email: 'E-mail' }),
    review.problems({ email: 'E-mail' }),
    review.edit({ email: null }, 1),
    review.approve({ email: 'E-mail' }),
    review.cancel(),
    call(review.at('sheet'), { method: 'POST', body: { sheet: 'Sheet1' } }),
    call(review.at('encoding'), { method: 'POST', body: { encoding: 'windows-1252' } }),
  ];

  it('answers every data call with 403 review_expired and its state with the expired state alone', async () => {
    const { id, ready, review } = await openReview();
    expect((await review.preview()).status).toBe(200);
    await passed(ready.review_expires_at);

    const state = await review.state();
    expect(state.status).toBe(200);
    expect(state.body).toEqual({
      run_id: id,
      phase: 'expired',
      locale: 'en',
      appearance: null,
      filename: null,
      encoding: null,
      encodings: [],
      fields: [],
      source_headers: [],
      mapping_rule: null,
      mapping_version: 0,
      value_fixes: [],
      fixes_key: '0:',
      rows_left_out: [],
      input_has_header: null,
      header_choice: false,
      rows_above_header: [],
      rows_above_header_found: [],
      sheets: [],
      sheet: null,
      rows_out_of_line: null,
      hidden_rows: [],
      hidden_rows_total: 0,
      hidden_rows_known: false,
      hidden_rows_left_out: false,
      hidden_rows_put_back: [],
      waiting_for_upload: false,
      output_ready: false,
      problem_rows_choice: null,
      rows_excluded: null,
      total_rows: null,
      processed_rows: 0,
      review_expires_at: ready.review_expires_at,
      review_approved_at: null,
      review_canceled_at: null,
      success_callback: null,
      cancel_callback: null,
      error: null,
      notices: [],
    });
    for (const res of await Promise.all(dataCalls(review))) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'review_expired', type: 'authorization' });
      expect(JSON.stringify(res.body)).not.toMatch(/secret\.person|E-mail|people-private/);
    }
    const run = await call(`${svc.baseUrl}/v1/transformations/${id}`, { token: org.apiKey });
    expect(run.body).toMatchObject({ review_state: 'expired', terminal: true, status: 'completed', stage: 'review' });
  });

  it('closes an approved review too: its link shows only the expired state once the deadline passed', async () => {
    const { id, ready, review } = await openReview();
    expect((await review.approve({ email: 'E-mail' })).status).toBe(200);
    await waitForRun(svc, org.apiKey, id, (r) => r.stage === 'final' && r.status === 'completed');
    expect((await review.preview()).status).toBe(200);
    await passed(ready.review_expires_at);

    expect((await review.state()).body).toMatchObject({ phase: 'expired', fields: [], mapping_rule: null, review_approved_at: null });
    for (const res of await Promise.all(dataCalls(review))) expect(res.body.error.code).toBe('review_expired');
    // The run itself is unchanged: its review was approved, and its output stays downloadable.
    const run = await call(`${svc.baseUrl}/v1/transformations/${id}`, { token: org.apiKey });
    expect(run.body).toMatchObject({ review_state: 'approved', terminal: true });
    expect((await fetch(run.body.download_url)).status).toBe(200);
  });
});
