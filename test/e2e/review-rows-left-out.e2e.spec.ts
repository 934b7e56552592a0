import ExcelJS from 'exceljs';
import { runStreamId, type StoredEvent } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { WebhookReceiver } from '../support/webhook-receiver';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * A reviewer leaves one row out of the records (a totals line, a test record) and may put it back: a fix of a whole
 * row, recorded as an event, seen alike by the preview, the counts, the rows with problems and the output, and
 * counted in the run's and the webhook's rows_excluded.
 */
describe('review: a row left out', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService({ WEBHOOK_RETRY_DELAYS_MS: '60,60' });
    org = await setupOrganization(svc);
  });
  afterAll(async () => {
    await svc.stop();
    await receiver.stop();
  });

  // Row 3 has no e-mail, row 4 is a totals line; rows 1, 2 and 5 are clean.
  const CSV = ['E-mail,Name', 'a@x.org,Ann', 'b@x.org,Bob', ',Cy', 'Total,3', 'e@x.org,Ed'].join('\n');
  const MAPPING = { email: 'E-mail', first_name: 'Name' };

  async function readyReview() {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv', notify_url: `${receiver.url}/hook` },
    });
    expect((await upload(run.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    const rowFix = (fix: unknown, extra: Record<string, unknown> = {}) =>
      call(review.at('fixes'), { method: 'POST', body: { fix, ...extra } });
    return { runId: run.body.id as string, review, rowFix };
  }

  const events = async (runId: string): Promise<StoredEvent[]> => svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(runId));

  it('leaves the totals line out: the preview marks it, the counts and pages pass over it, the output lacks it', async () => {
    const { runId, review, rowFix } = await readyReview();
    expect((await review.problems()).body).toMatchObject({ rows_with_problems: 2, problems_by_field: { email: 2 } });

    const left = await rowFix({ kind: 'leave_out', row: 4 });
    expect(left.status).toBe(200);
    expect(left.body.value_fixes).toMatchObject([{ field: '', fix: { kind: 'leave_out', row: 4, numbering: expect.any(String) } }]);
    expect(left.body.rows_left_out).toEqual([4]);

    const preview = (await review.preview()).body;
    expect(preview.rows).toHaveLength(5);
    expect(preview.rows[3].first_name.value).toBe('3');
    expect(preview.left_out_rows).toEqual([4]);
    expect(preview.rows[3].email.problem).toBeNull();
    expect((await review.problems()).body).toMatchObject({ rows_with_problems: 1, problems_by_field: { email: 1 } });
    expect((await review.problemRows({})).body.rows.map((r: { row: number }) => r.row)).toEqual([3]);

    // Asked again, nothing more is recorded.
    expect((await rowFix({ kind: 'leave_out', row: 4 })).body.value_fixes).toHaveLength(1);
    const recorded = (await events(runId)).filter((e) => e.type === 'ValuesFixed').map((e) => e.data as any);
    expect(recorded).toEqual([expect.objectContaining({ field: '', fixed_by: 'review_link', fix: left.body.value_fixes[0].fix })]);

    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done).toMatchObject({ rows_excluded: 1, processed_rows: 5 });
    const output = await (await fetch(done.download_url)).json();
    expect(output.map((r: { first_name: string }) => r.first_name)).toEqual(['ANN', 'BOB', 'CY', 'ED']);
    const [delivery] = await receiver.waitFor(runId, 1);
    expect(JSON.parse(delivery.body)).toMatchObject({ event: 'transformation.finished', rows_excluded: 1 });
    // After approval a row is fixed no more.
    expect((await rowFix({ kind: 'put_back', row: 4 })).status).toBe(409);
  });

  it('puts a row back from any place in the fixes, and the undo takes back the latest row fix like any fix', async () => {
    const { review, rowFix } = await readyReview();
    await rowFix({ kind: 'leave_out', row: 4 });
    await review.fix('email', { kind: 'normalise', normaliser: 'trim' });
    const back = await rowFix({ kind: 'put_back', row: 4 });
    expect(back.body.value_fixes.map((f: { fix: { kind: string } }) => f.fix.kind)).toEqual(['leave_out', 'normalise', 'put_back']);
    expect([back.body.rows_left_out, (await review.preview()).body.left_out_rows]).toEqual([[], []]);
    expect((await review.problems()).body.rows_with_problems).toBe(2);
    // Putting back a row not left out records nothing.
    expect((await rowFix({ kind: 'put_back', row: 4 })).body.value_fixes).toHaveLength(3);
    // The undo takes the put-back back: the row is out again.
    expect((await review.undo()).status).toBe(200);
    expect((await review.preview()).body.left_out_rows).toEqual([4]);
  });

  it('with the rows still with problems left out at approval too, each row is counted once', async () => {
    const { runId, review, rowFix } = await readyReview();
    await rowFix({ kind: 'leave_out', row: 4 });
    expect((await review.approve(undefined, 'exclude')).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done.rows_excluded).toBe(2);
    expect((await (await fetch(done.download_url)).json()).map((r: { first_name: string }) => r.first_name)).toEqual(['ANN', 'BOB', 'ED']);
  });

  it('a row numbered otherwise once the file is read again (no header row) is not the one left out; read as before, it is', async () => {
    const { review, rowFix } = await readyReview();
    const left = await rowFix({ kind: 'leave_out', row: 4 });
    const header = (input_has_header: boolean) => call(review.at('header'), { method: 'POST', body: { input_has_header } });
    const chosen = await header(false);
    expect([chosen.status, chosen.body.rows_left_out]).toEqual([200, []]);
    // Row 4 is now "Cy"'s row: not the one left out, so it stays in; the totals line (row 5) was never left out.
    expect((await review.preview()).body.left_out_rows).toEqual([]);
    // A page loaded before the header row was chosen names rows as they were numbered then: refused.
    const stale = await rowFix({ kind: 'leave_out', row: 2 }, { expected_mapping_version: left.body.mapping_version });
    expect([stale.status, stale.body.error.code]).toEqual([409, 'mapping_conflict']);
    expect((await header(true)).body.rows_left_out).toEqual([4]);
    expect((await review.preview()).body.left_out_rows).toEqual([4]);
  });

  it("names the rows a workbook's sheet hides, by their number under the header row in force, on each sheet", async () => {
    const wb = new ExcelJS.Workbook();
    const orders = wb.addWorksheet('Orders');
    orders.addRow(['E-mail', 'Name']);
    orders.addRow(['a@x.org', 'Ann']);
    orders.addRow(['b@x.org', 'Bob']).hidden = true;
    orders.addRow(['c@x.org', 'Cy']);
    orders.addRow(['Total', '3']).hidden = true;
    const other = wb.addWorksheet('Other');
    other.addRow(['E-mail', 'Name']);
    other.addRow(['d@x.org', 'Di']).hidden = true;
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'orders.xlsx' },
    });
    expect((await upload(run.body, Buffer.from(await wb.xlsx.writeBuffer()))).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    expect((await review.state()).body).toMatchObject({ hidden_rows: [2, 4], hidden_rows_total: 2 });
    // All listed: the events carry no count past the list.
    expect((await events(run.body.id)).find((e) => e.type === 'SourceParsed')!.data).not.toHaveProperty('hidden_rows_total');

    // The hidden totals line left out like any row: the rows read from the workbook in a worker thread.
    const left = await call(review.at('fixes'), { method: 'POST', body: { fix: { kind: 'leave_out', row: 4 } } });
    expect(left.status).toBe(200);
    expect((await review.preview()).body.left_out_rows).toEqual([4]);

    // Read without a header row, the same rows are one further down.
    expect((await call(review.at('header'), { method: 'POST', body: { input_has_header: false } })).body.hidden_rows).toEqual([3, 5]);
    const sheet = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Other' } });
    expect([sheet.status, sheet.body.hidden_rows, sheet.body.hidden_rows_total]).toEqual([200, [1], 1]);
    expect((await events(run.body.id)).find((e) => e.type === 'SheetChosen')!.data).not.toHaveProperty('hidden_rows_total');
  });

  it('says how many rows a sheet hides past the 1,000 listed: in the events, and in the state under the header row and sheet in force', async () => {
    const wb = new ExcelJS.Workbook();
    const orders = wb.addWorksheet('Orders');
    // The header row hidden too, and the first 1,250 of 1,300 records: 1,251 rows hidden, the list stops at 1,000.
    orders.addRow(['E-mail', 'Name']).hidden = true;
    for (let i = 1; i <= 1300; i++) orders.addRow([`p${i}@x.org`, `P${i}`]).hidden = i <= 1250;
    const other = wb.addWorksheet('Other');
    other.addRow(['E-mail', 'Name']);
    for (let i = 1; i <= 1100; i++) other.addRow([`q${i}@x.org`, `Q${i}`]).hidden = true;
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'orders.xlsx' },
    });
    expect((await upload(run.body, Buffer.from(await wb.xlsx.writeBuffer()))).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const parsed = (await events(run.body.id)).find((e) => e.type === 'SourceParsed')!.data as Record<string, unknown>;
    // As the file's rows are read: the header is row 1.
    expect(parsed.hidden_rows).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(parsed.hidden_rows_total).toBe(1251);

    const review = reviewApi(run.body.review_url);
    const state = (await review.state()).body;
    // As data rows under the header: the hidden header is none of them.
    expect(state.hidden_rows).toEqual(Array.from({ length: 999 }, (_, i) => i + 1));
    expect(state.hidden_rows_total).toBe(1250);
    // Read without a header row, the first row is a hidden row of data too.
    const noHeader = await call(review.at('header'), { method: 'POST', body: { input_has_header: false } });
    expect([noHeader.status, noHeader.body.hidden_rows.length, noHeader.body.hidden_rows_total]).toEqual([200, 1000, 1251]);
    const back = await call(review.at('header'), { method: 'POST', body: { input_has_header: true } });
    expect([back.body.hidden_rows.length, back.body.hidden_rows_total]).toEqual([999, 1250]);

    const sheet = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Other' } });
    expect([sheet.status, sheet.body.hidden_rows.length, sheet.body.hidden_rows_total]).toEqual([200, 1000, 1100]);
    const chosen = (await events(run.body.id)).find((e) => e.type === 'SheetChosen')!.data as Record<string, unknown>;
    expect([(chosen.hidden_rows as number[]).length, chosen.hidden_rows_total]).toEqual([1000, 1100]);
    // Back on the first sheet, its count again.
    const first = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Orders' } });
    expect([first.body.hidden_rows.length, first.body.hidden_rows_total]).toEqual([999, 1250]);
  });

  it('leaves out every row a sheet hides with one fix, past the 1,000 listed; a row put back after it is delivered', async () => {
    const wb = new ExcelJS.Workbook();
    const orders = wb.addWorksheet('Orders');
    // A filter's leftovers: 3,000 records, of which 1-1,200 and 2,001-2,900 are hidden (2,100 rows in two spans).
    orders.addRow(['E-mail', 'Name']);
    const hidden = (i: number) => i <= 1200 || (i > 2000 && i <= 2900);
    for (let i = 1; i <= 3000; i++) orders.addRow([`p${i}@x.org`, `P${i}`]).hidden = hidden(i);
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'filtered.xlsx' },
    });
    expect((await upload(run.body, Buffer.from(await wb.xlsx.writeBuffer()))).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const parsed = (await events(run.body.id)).find((e) => e.type === 'SourceParsed')!.data as Record<string, unknown>;
    // As the file's rows are read (the header is row 1): all of them, as spans.
    expect([parsed.hidden_rows_total, parsed.hidden_row_spans]).toEqual([
      2100,
      [
        [2, 1201],
        [2002, 2901],
      ],
    ]);
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    expect((await review.state()).body).toMatchObject({ hidden_rows_total: 2100, hidden_rows_known: true, hidden_rows_left_out: false });

    const rowFix = (fix: unknown) => call(review.at('fixes'), { method: 'POST', body: { fix } });
    const left = await rowFix({ kind: 'leave_out_hidden' });
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ hidden_rows_left_out: true, rows_left_out: [], hidden_rows_put_back: [] });
    expect(left.body.value_fixes).toMatchObject([{ field: '', fix: { kind: 'leave_out_hidden', numbering: expect.any(String) } }]);
    // Asked again, nothing more is recorded: one fix, not 2,100.
    expect((await rowFix({ kind: 'leave_out_hidden' })).body.value_fixes).toHaveLength(1);
    const preview = (await review.preview()).body;
    expect(preview.left_out_rows.slice(0, 3)).toEqual([1, 2, 3]);
    // Record 2,500 (hidden) is put back on its own: the latest fix of its row decides.
    const back = await rowFix({ kind: 'put_back', row: 2500 });
    expect(back.body).toMatchObject({ hidden_rows_left_out: true, hidden_rows_put_back: [2500], rows_left_out: [] });
    // Record 2,400 (hidden, past the 1,000 listed) put back, then left out again on its own: one of the hidden rows left
    // out again, not also listed one by one (a page cannot tell it is hidden, and would count it twice).
    await rowFix({ kind: 'put_back', row: 2400 });
    const again = await rowFix({ kind: 'leave_out', row: 2400 });
    expect(again.body).toMatchObject({ hidden_rows_left_out: true, hidden_rows_put_back: [2500], rows_left_out: [] });

    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done).toMatchObject({ rows_excluded: 2099, processed_rows: 3000 });
    const names = (await (await fetch(done.download_url)).json()).map((r: { first_name: string }) => r.first_name);
    const expected = Array.from({ length: 3000 }, (_, i) => i + 1)
      .filter((i) => !hidden(i) || i === 2500)
      .map((i) => `P${i}`.toUpperCase());
    expect(names).toEqual(expected);
  });

  it('refuses what it cannot record, in the error envelope', async () => {
    const { review, rowFix } = await readyReview();
    const refused = async (fix: unknown, extra: Record<string, unknown> = {}) => {
      const res = await rowFix(fix, extra);
      return [res.status, res.body.error.code, res.body.error.message];
    };
    expect(await refused({ kind: 'leave_out', row: 6 })).toEqual([422, 'invalid_fix', "row must be a data row's number, from 1 to 5."]);
    expect((await refused({ kind: 'leave_out', row: '2' }))[1]).toBe('invalid_fix');
    expect((await refused({ kind: 'put_back', row: 0 }))[1]).toBe('invalid_fix');
    expect(await refused({ kind: 'leave_out', row: 2 }, { field: 'email' })).toEqual([422, 'validation_failed', expect.any(String)]);
    expect((await rowFix({ kind: 'leave_out', row: 2 }, { field: 'email' })).body.error.fields.field).toEqual([
      'A fix of a whole row names no field.',
    ]);
    // Without a field, a kind no fix has is named as such, not answered with a request for a field (a probe's finding).
    for (const kind of ['Leave_Out', 'remove', 7])
      expect(await refused({ kind, row: 3 })).toEqual([
        422,
        'invalid_fix',
        'A fix without a field is of whole rows: kind must be "leave_out" or "put_back" (with a row), or "leave_out_hidden" or "put_back_hidden".',
      ]);
    // A field's kind without its field still asks for the field.
    expect((await rowFix({ kind: 'cell', row: 3, before: 'a', after: 'b' })).body.error.fields.field).toEqual([
      'The field must be the name of a schema field.',
    ]);
    // A file that hides no rows has none to leave out at once.
    expect(await refused({ kind: 'leave_out_hidden' })).toEqual([422, 'invalid_fix', 'The sheet hides no rows of data.']);
    expect((await review.state()).body).toMatchObject({ hidden_rows_known: false, hidden_rows_left_out: false });
    expect((await review.state()).body.value_fixes).toEqual([]);
  });
});
