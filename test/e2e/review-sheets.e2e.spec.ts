import ExcelJS from 'exceljs';
import { call, reviewApi, serviceWithOrganization, upload, waitForRun } from '../support/service-harness';

/**
 * A workbook with several sheets: the review opens on the first visible sheet with data,
 * the reviewer switches to another (headers, preview, counts and samples follow; the
 * mapping is kept where the columns match), and the output is made from that sheet.
 */
describe('review of a workbook with several sheets', () => {
  const suite = serviceWithOrganization();

  /** A hidden cover sheet, the people on the second sheet, staff with other columns on the third. */
  async function threeSheets(): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    const cover = wb.addWorksheet('Cover', { state: 'hidden' });
    cover.addRow(['Read me first']);
    cover.addRow(['exported 2026-01-01']);
    const people = wb.addWorksheet('People');
    people.addRow(['E-mail', 'Name', 'Years']);
    people.addRow(['ada@example.com', 'Ada', 36]);
    people.addRow(['alan@example.com', 'Alan', 41]);
    people.addRow(['grace@example.com', 'Grace', 45]);
    const staff = wb.addWorksheet('Staff');
    staff.addRow(['E-mail', 'Years', 'Dept']);
    staff.addRow(['Linus@Example.com', 28, 'Kernel']);
    staff.addRow(['', 'old', 'Docs']);
    // A title sheet: one row, which would be read as the column names of nothing.
    wb.addWorksheet('Summary').addRow(['Quarterly export']);
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  async function workbookReview() {
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/file`, {
      token: suite.org.apiKey,
      body: { schema_id: suite.org.schemaId, filename: 'people.xlsx' },
    });
    expect((await upload(run.body, await threeSheets())).status).toBe(200);
    await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.review_state === 'active');
    return { runId: run.body.id as string, review: reviewApi(run.body.review_url) };
  }

  it('opens on the first visible sheet with data, switches sheet, and delivers the chosen sheet', async () => {
    const { runId, review } = await workbookReview();
    const chooseSheet = (sheet: unknown) => call(review.at('sheet'), { method: 'POST', body: { sheet } });

    const opened = (await review.state()).body;
    expect(opened).toMatchObject({
      sheets: [
        { name: 'Cover', state: 'hidden', has_data: true },
        { name: 'People', state: 'visible', has_data: true },
        { name: 'Staff', state: 'visible', has_data: true },
        { name: 'Summary', state: 'visible', has_data: true },
      ],
      sheet: 'People',
      source_headers: ['E-mail', 'Name', 'Years'],
      total_rows: 3,
    });
    const edited = await review.edit({ email: 'E-mail', first_name: 'Name', age: 'Years', born: null }, opened.mapping_version);
    expect(edited.status).toBe(200);
    expect((await review.preview()).body.rows[0].email.value).toBe('ada@example.com');

    const switched = await chooseSheet('Staff');
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({
      sheet: 'Staff',
      source_headers: ['E-mail', 'Years', 'Dept'],
      input_has_header: true,
      total_rows: 2,
      // Kept where Staff has the column; "Name" is not on it.
      mapping_rule: { email: 'E-mail', first_name: null, age: 'Years', born: null },
      mapping_version: edited.body.mapping_version + 1,
    });
    expect((await review.state()).body.sheet).toBe('Staff');

    const preview = (await review.preview()).body;
    expect(preview.rows.map((r: Record<string, { value: unknown }>) => [r.email.value, r.age.value])).toEqual([
      ['linus@example.com', '28'],
      [null, 'old'],
    ]);
    expect(preview.column_samples).toEqual({ 'E-mail': ['Linus@Example.com'], Years: ['28', 'old'], Dept: ['Kernel', 'Docs'] });
    const problems = (await review.problems()).body;
    expect(problems).toMatchObject({ status: 'counted', rows_checked: 2, rows_with_problems: 1 });
    expect(problems.problems_by_field_and_kind.email).toMatchObject({ required: 1, type: 0 });

    // The same sheet again changes nothing; a sheet the workbook lacks, or no name, is refused.
    expect((await chooseSheet('Staff')).body.mapping_version).toBe(switched.body.mapping_version);
    const unknown = await chooseSheet('Invoices');
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_sheet' });
    expect(unknown.body.error.message).toContain('"Invoices"');
    expect((await chooseSheet(42)).status).toBe(422);
    expect((await review.state()).body.sheet).toBe('Staff');

    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(suite.svc, suite.org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done.total_rows).toBe(2);
    const output = await (await fetch(done.download_url)).json();
    expect(output).toEqual([
      { email: 'linus@example.com', first_name: null, age: 28, born: null },
      { email: null, first_name: null, age: 'old', born: null },
    ]);

    // After approval the sheet is fixed.
    const late = await chooseSheet('People');
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'review_already_approved' });
  });

  it('gives each row of a merged cell its value, on the sheet it opens on and on a sheet chosen, in the preview and the output', async () => {
    // A family name merged down its members; the header "Years" merged down into the first record, which has no age
    // (a header's merge is no record's value); on the second sheet, the age merged down a pair.
    const wb = new ExcelJS.Workbook();
    const family = wb.addWorksheet('Family');
    family.addRow(['E-mail', 'Name', 'Years']);
    family.addRow(['ann@example.com', 'Smith', null]);
    family.addRow(['bob@example.com', null, 31]);
    family.addRow(['cid@example.com', null, 32]);
    family.addRow(['dee@example.com', 'Jones', 40]);
    family.mergeCells('B2:B4');
    family.mergeCells('C1:C2');
    const twins = wb.addWorksheet('Twins');
    twins.addRow(['E-mail', 'Name', 'Years']);
    twins.addRow(['eve@example.com', 'Eve', 7]);
    twins.addRow(['fay@example.com', 'Fay', null]);
    twins.mergeCells('C2:C3');
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/file`, {
      token: suite.org.apiKey,
      body: { schema_id: suite.org.schemaId, filename: 'families.xlsx' },
    });
    expect((await upload(run.body, Buffer.from(await wb.xlsx.writeBuffer()))).status).toBe(200);
    await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    const mapping = { email: 'E-mail', first_name: 'Name', age: 'Years', born: null };
    expect((await review.edit(mapping, (await review.state()).body.mapping_version)).status).toBe(200);
    const rows = (await review.preview()).body.rows as Record<string, { value: unknown }>[];
    expect(rows.map((r) => r.first_name.value)).toEqual(['SMITH', 'SMITH', 'SMITH', 'JONES']);
    expect(rows.map((r) => r.age.value)).toEqual([null, '31', '32', '40']);

    const switched = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Twins' } });
    expect(switched.status).toBe(200);
    expect(switched.body.total_rows).toBe(2);
    const ages = (await review.preview()).body.rows.map((r: Record<string, { value: unknown }>) => r.age.value);
    expect(ages).toEqual(['7', '7']);
    expect((await review.problems(undefined, true)).body).toMatchObject({ rows_with_problems: 0 });

    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    expect(await (await fetch(done.download_url)).json()).toEqual([
      { email: 'eve@example.com', first_name: 'EVE', age: 7, born: null },
      { email: 'fay@example.com', first_name: 'FAY', age: 7, born: null },
    ]);
  });

  it('a hidden sheet may be chosen, and a sheet gets its mapping back when the reviewer returns to it', async () => {
    const { review } = await workbookReview();
    const chooseSheet = (sheet: string) => call(review.at('sheet'), { method: 'POST', body: { sheet } });
    const mapped = { email: 'E-mail', first_name: 'Name', age: 'Years', born: null };
    expect((await review.edit(mapped, (await review.state()).body.mapping_version)).status).toBe(200);
    const cover = await chooseSheet('Cover');
    expect(cover.body).toMatchObject({ sheet: 'Cover', total_rows: 1 });
    expect(Object.values(cover.body.mapping_rule).every((column) => column === null)).toBe(true);
    const back = await chooseSheet('People');
    expect(back.body).toMatchObject({ sheet: 'People', source_headers: ['E-mail', 'Name', 'Years'], total_rows: 3, mapping_rule: mapped });
    expect((await review.preview()).body.rows).toHaveLength(3);
  });

  it('a sheet left with its first row read as data gives its fields back the columns in their places when it is read with its header row again', async () => {
    // A probe's finding: the columns saved for People then were column_1..3, which its read with the header row lacks,
    // and every field came back unmapped (an approval would have delivered records of nulls).
    const { review } = await workbookReview();
    const chooseSheet = (sheet: string) => call(review.at('sheet'), { method: 'POST', body: { sheet } });
    const mapped = { email: 'E-mail', first_name: 'Name', age: 'Years', born: null };
    expect((await review.edit(mapped, (await review.state()).body.mapping_version)).status).toBe(200);
    const headerless = await call(review.at('header'), { method: 'POST', body: { input_has_header: false } });
    expect(headerless.body.mapping_rule).toEqual({ email: 'column_1', first_name: 'column_2', age: 'column_3', born: null });
    expect((await chooseSheet('Staff')).status).toBe(200);
    const back = await chooseSheet('People');
    expect(back.body).toMatchObject({
      sheet: 'People',
      input_has_header: true,
      source_headers: ['E-mail', 'Name', 'Years'],
      mapping_rule: mapped,
    });
    const approved = await review.approve();
    expect(approved.status).toBe(200);
  });

  it('refuses a title sheet of one row with sheet_empty: the review stays on the sheet it was on, with its mapping', async () => {
    const { review } = await workbookReview();
    const before = (await review.state()).body;
    const title = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Summary' } });
    expect(title.status).toBe(422);
    expect(title.body.error).toMatchObject({
      code: 'sheet_empty',
      message: 'The sheet "Summary" has no rows under its first row: nothing to import.',
    });
    expect((await review.state()).body).toMatchObject({
      sheet: 'People',
      mapping_rule: before.mapping_rule,
      mapping_version: before.mapping_version,
      total_rows: 3,
    });
  });

  it('a delimited file has no sheets: the state lists none and choosing one is refused', async () => {
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/file`, {
      token: suite.org.apiKey,
      body: { schema_id: suite.org.schemaId, filename: 'p.csv' },
    });
    await upload(run.body, 'E-mail,Years\na@x.org,30\n');
    await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.state()).body).toMatchObject({ sheets: [], sheet: null });
    const refused = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Sheet1' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'sheet_not_applicable' });
  });
});
