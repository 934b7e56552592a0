import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { call, reviewApi, serviceWithOrganization, upload, waitForRun } from '../support/service-harness';

/**
 * A title above the table (a report's name and date in its first rows): the rows are left out of every read, the
 * header is the row under them, and the reviewer can read them again as rows, take the first row as the names, or
 * leave them out again. Nothing is dropped unseen: the review lists what it left out.
 */
describe('rows above the header (a title)', () => {
  const suite = serviceWithOrganization();

  // Two title lines (a blank line between them and the table, which every reader skips) over a table of three rows.
  const titled = 'Customer export\nMade 2024-01-05\n\nE-mail,Years\nann@x.org,30\nbob@x.org,31\ncleo@x.org,32\n';

  async function reviewOf(filename: string, body: string | Buffer, extra: object = {}) {
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/file`, {
      token: suite.org.apiKey,
      body: { schema_id: suite.org.schemaId, filename, ...extra },
    });
    expect((await upload(run.body, body)).status).toBe(200);
    await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.review_state === 'active');
    return { id: run.body.id as string, review: reviewApi(run.body.review_url) };
  }

  it('reads the table under a title: its header, its rows, and the output without the title', async () => {
    const { id, review } = await reviewOf('titled.csv', titled);
    const state = (await review.state()).body;
    expect(state).toMatchObject({
      source_headers: ['E-mail', 'Years'],
      input_has_header: true,
      total_rows: 3,
      rows_above_header: ['Customer export', 'Made 2024-01-05'],
      rows_above_header_found: ['Customer export', 'Made 2024-01-05'],
      rows_out_of_line: null,
      mapping_rule: { email: 'E-mail' },
    });
    const preview = (await review.preview({ email: 'E-mail', age: 'Years' })).body;
    expect(preview.rows.map((r: { email: { value: string } }) => r.email.value)).toEqual(['ann@x.org', 'bob@x.org', 'cleo@x.org']);
    expect(preview.column_samples).toEqual({ 'E-mail': ['ann@x.org', 'bob@x.org', 'cleo@x.org'], Years: ['30', '31', '32'] });
    // The public run says the same.
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/${id}`, { token: suite.org.apiKey, method: 'GET' });
    expect(run.body).toMatchObject({ source_headers: ['E-mail', 'Years'], input_has_header: true, total_rows: 3 });
    await review.edit({ email: 'E-mail', age: 'Years' });
    await review.approve();
    const done = await waitForRun(suite.svc, suite.org.apiKey, id, (r) => r.status === 'completed' && r.stage === 'final');
    const output = await (await fetch(done.download_url)).json();
    expect(output.map((r: { email: string; age: number }) => [r.email, r.age])).toEqual([
      ['ann@x.org', 30],
      ['bob@x.org', 31],
      ['cleo@x.org', 32],
    ]);
  });

  it('reads the title again as rows, takes the first row as the names, or leaves the title out again, as the reviewer says', async () => {
    const { review } = await reviewOf('titled-choice.csv', titled);
    const header = (body: object) => call(review.at('header'), { method: 'POST', body });

    // Every row is data: the title rows and the header row too.
    expect((await header({ input_has_header: false })).body).toMatchObject({
      input_has_header: false,
      source_headers: ['column_1', 'column_2'],
      total_rows: 6,
      rows_above_header: [],
      rows_above_header_found: ['Customer export', 'Made 2024-01-05'],
    });
    const asRows = (await review.preview({ email: 'column_1' })).body.rows.map((r: { email: { value: string } }) => r.email.value);
    expect(asRows.slice(0, 4)).toEqual(['customer export', 'made 2024-01-05', 'e-mail', 'ann@x.org']);

    // The first row holds the names.
    expect((await header({ input_has_header: true, rows_above_header: 0 })).body).toMatchObject({
      input_has_header: true,
      source_headers: ['Customer export', 'column_2'],
      total_rows: 5,
      rows_above_header: [],
    });

    // The title left out again: as the file's read found it.
    const again = await header({ input_has_header: true, rows_above_header: 2 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      input_has_header: true,
      source_headers: ['E-mail', 'Years'],
      total_rows: 3,
      rows_above_header: ['Customer export', 'Made 2024-01-05'],
    });
    // Said twice: nothing to change. A header kept without a count keeps the rows above it.
    const version = again.body.mapping_version;
    expect((await header({ input_has_header: true, rows_above_header: 2 })).body.mapping_version).toBe(version);
    expect((await header({ input_has_header: true })).body).toMatchObject({ mapping_version: version, total_rows: 3 });
  });

  it('refuses a count of rows above the header that is not one, or that leaves no row under the names', async () => {
    const { review } = await reviewOf('titled-refused.csv', titled);
    const header = (body: object) => call(review.at('header'), { method: 'POST', body });
    for (const body of [
      { input_has_header: true, rows_above_header: 6 },
      { input_has_header: true, rows_above_header: -1 },
      { input_has_header: true, rows_above_header: 1.5 },
      { input_has_header: true, rows_above_header: '2' },
      { input_has_header: false, rows_above_header: 2 },
      // The file's fifth row is its last: no row under it.
      { input_has_header: true, rows_above_header: 5 },
    ]) {
      const refused = await header(body);
      expect([refused.status, refused.body.error.code, Object.keys(refused.body.error.fields ?? {})]).toEqual([
        422,
        'validation_failed',
        ['rows_above_header'],
      ]);
    }
    // Nothing changed.
    expect((await review.state()).body).toMatchObject({ total_rows: 3, rows_above_header: ['Customer export', 'Made 2024-01-05'] });
  });

  it("lists the file's first rows for the reviewer to say which holds the names: lines of two values no title finds", async () => {
    const report = 'Account,DE12 3456\nPeriod,January 2024\nE-mail,Years,City\nann@x.org,30,Berlin\nbob@x.org,31,Rome\n';
    const { id, review } = await reviewOf('report.csv', report);
    // Two values a line: no title found, and the first line read as the header.
    const first = (await review.state()).body;
    expect(first).toMatchObject({ rows_above_header: [], source_headers: ['Account', 'DE12 3456', 'column_3'] });
    // Rows of three cells under a first row of two: told, numbered under the first row as the header.
    expect(first.rows_out_of_line).toMatchObject({ longer_rows: 3, first_longer_row: 2 });
    const top = await call(review.at('top-rows'), { method: 'GET' });
    expect(top.status).toBe(200);
    expect(top.body).toEqual({
      rows: ['Account · DE12 3456', 'Period · January 2024', 'E-mail · Years · City', 'ann@x.org · 30 · Berlin', 'bob@x.org · 31 · Rome'],
    });
    const chosen = await call(review.at('header'), { method: 'POST', body: { input_has_header: true, rows_above_header: 2 } });
    expect(chosen.body).toMatchObject({
      source_headers: ['E-mail', 'Years', 'City'],
      total_rows: 2,
      rows_above_header: ['Account · DE12 3456', 'Period · January 2024'],
      // Counted under the first row: under the third, those numbers say nothing (and every row lines up).
      rows_out_of_line: null,
    });
    // Another run's signature opens none of this run's rows.
    const other = await reviewOf('other.csv', titled);
    const foreign = `${review.at('top-rows').split('?')[0]}?signature=${new URL(other.review.at('state')).searchParams.get('signature')}`;
    expect((await call(foreign, { method: 'GET' })).status).toBe(403);
    // Closed reviews answer as every other action does.
    await review.edit({ email: 'E-mail' });
    await review.approve();
    await waitForRun(suite.svc, suite.org.apiKey, id, (r) => r.stage === 'final' && r.status === 'completed');
    expect((await call(review.at('top-rows'), { method: 'GET' })).status).toBe(409);
  });

  it('leaves nothing out of a file the caller said has no header', async () => {
    const { review } = await reviewOf('titled-headerless.csv', titled, { input_has_header: false });
    expect((await review.state()).body).toMatchObject({ input_has_header: false, total_rows: 6, rows_above_header: [] });
  });

  it("keeps the title left out when the file is read in another encoding, and the reviewer's answer about it", async () => {
    const file = iconv.encode('Kundenliste Città\nE-mail,Città\nann@x.org,Forlì\nbob@x.org,Cantù\n', 'windows-1252');
    const { review } = await reviewOf('titled-1252.csv', file);
    const choose = (encoding: string) => call(review.at('encoding'), { method: 'POST', body: { encoding } });
    expect((await review.state()).body).toMatchObject({
      encoding: 'windows-1252',
      total_rows: 2,
      rows_above_header: ['Kundenliste Città'],
    });
    const chosen = await choose('windows-1250');
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({
      source_headers: ['E-mail', 'Cittŕ'],
      total_rows: 2,
      rows_above_header: ['Kundenliste Cittŕ'],
      rows_above_header_found: ['Kundenliste Cittŕ'],
    });
    const rows = (await review.preview({ email: 'E-mail' })).body.rows.map((r: { email: { value: string } }) => r.email.value);
    expect(rows).toEqual(['ann@x.org', 'bob@x.org']);
    // Read as rows, then in another encoding: still rows, and still offered to be left out, in the letters it now reads in.
    expect((await call(review.at('header'), { method: 'POST', body: { input_has_header: false } })).body.total_rows).toBe(4);
    expect((await choose('windows-1252')).body).toMatchObject({
      input_has_header: false,
      total_rows: 4,
      rows_above_header: [],
      rows_above_header_found: ['Kundenliste Città'],
    });
    // Left out again from there: the title in those letters, and the table's two rows.
    const again = await call(review.at('header'), { method: 'POST', body: { input_has_header: true, rows_above_header: 1 } });
    expect(again.body).toMatchObject({ source_headers: ['E-mail', 'Città'], total_rows: 2, rows_above_header: ['Kundenliste Città'] });
  });

  it("finds another sheet's own title when the reviewer reads that sheet", async () => {
    const book = new ExcelJS.Workbook();
    book.addWorksheet('People').addRows([
      ['E-mail', 'Years'],
      ['ann@x.org', 30],
    ]);
    book.addWorksheet('Staff').addRows([['Staff list'], ['E-mail', 'Years'], ['sue@x.org', 40], ['tom@x.org', 41], ['uma@x.org', 42]]);
    const { review } = await reviewOf('sheets-titled.xlsx', Buffer.from(await book.xlsx.writeBuffer()));
    expect((await review.state()).body).toMatchObject({ sheet: 'People', total_rows: 1, rows_above_header: [] });
    const chosen = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Staff' } });
    expect(chosen.body).toMatchObject({
      sheet: 'Staff',
      source_headers: ['E-mail', 'Years'],
      total_rows: 3,
      rows_above_header: ['Staff list'],
    });
    const rows = (await review.preview({ email: 'E-mail' })).body.rows.map((r: { email: { value: string } }) => r.email.value);
    expect(rows).toEqual(['sue@x.org', 'tom@x.org', 'uma@x.org']);
    // And back: the first sheet has none.
    expect((await call(review.at('sheet'), { method: 'POST', body: { sheet: 'People' } })).body).toMatchObject({
      total_rows: 1,
      rows_above_header: [],
    });
  });

  it("reads a workbook's table under a title in A1", async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Export');
    sheet.addRow(['Customer export']);
    sheet.addRow(['E-mail', 'Years']);
    sheet.addRow(['ann@x.org', 30]);
    sheet.addRow(['bob@x.org', 31]);
    const { review } = await reviewOf('titled.xlsx', Buffer.from(await book.xlsx.writeBuffer()));
    expect((await review.state()).body).toMatchObject({
      source_headers: ['E-mail', 'Years'],
      input_has_header: true,
      total_rows: 2,
      rows_above_header: ['Customer export'],
    });
    const preview = (await review.preview({ email: 'E-mail', age: 'Years' })).body;
    expect(preview.rows.map((r: { age: { value: string } }) => r.age.value)).toEqual(['30', '31']);
  });
});
