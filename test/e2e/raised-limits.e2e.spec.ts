import ExcelJS from 'exceljs';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * An operator raises the hostile-file limits (MAX_COLUMNS, MAX_ROW_CHARS): a file past the defaults is read at
 * ingestion, and every later read of its rows (the preview, the count, the output in the worker threads) reads it under
 * the same limits. Before the read's limits were recorded with it, a workbook wider than 1,000 columns failed after
 * approval, and a CRLF file whose first row was longer than a MiB was delivered with a CR at the end of every row.
 */
describe('files under raised limits', () => {
  const COLUMNS = 1200;
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    svc = await startService({ MAX_COLUMNS: '2000', MAX_ROW_CHARS: String(2 * 1024 * 1024), MAX_FIELD_CHARS: String(512 * 1024) });
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());

  /** Two sheets of 1,200 columns: the e-mail and the name in the last two. */
  async function wideWorkbook(): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    const sheet = (name: string, people: Array<[string, string]>) => {
      const ws = wb.addWorksheet(name);
      const filler = (row: string) => Array.from({ length: COLUMNS - 2 }, (_, i) => `${row}${i + 1}`);
      ws.addRow([...filler('Note '), 'E-mail', 'Name']);
      for (const [email, name] of people) ws.addRow([...filler('n'), email, name]);
    };
    sheet('People', [
      ['Ada@Example.com', 'Ada'],
      ['alan@example.com', 'Alan'],
    ]);
    sheet('Staff', [['grace@example.com', 'Grace']]);
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  it('reads, previews, counts and delivers every column, on the sheet it opens on and on a sheet chosen', async () => {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'wide.xlsx' },
    });
    expect((await upload(run.body, await wideWorkbook())).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);

    const opened = (await review.state()).body;
    expect(opened.source_headers).toHaveLength(COLUMNS);
    const mapping = { email: 'E-mail', first_name: 'Name', age: null, born: null };
    expect((await review.edit(mapping, opened.mapping_version)).status).toBe(200);
    const preview = (await review.preview()).body;
    expect(preview.rows.map((r: Record<string, { value: unknown }>) => [r.email.value, r.first_name.value])).toEqual([
      ['ada@example.com', 'ADA'],
      ['alan@example.com', 'ALAN'],
    ]);
    expect((await review.problems(undefined, true)).body).toMatchObject({ status: 'counted', rows_checked: 2, rows_with_problems: 0 });

    const chosen = await call(review.at('sheet'), { method: 'POST', body: { sheet: 'Staff' } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.mapping_rule).toMatchObject({ email: 'E-mail', first_name: 'Name' });

    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(
      svc,
      org.apiKey,
      run.body.id,
      (r) => (r.status === 'completed' || r.status === 'failed') && r.stage === 'final',
    );
    expect(done).toMatchObject({ status: 'completed', total_rows: 1 });
    expect(await (await fetch(done.download_url)).json()).toEqual([
      { email: 'grace@example.com', first_name: 'GRACE', age: null, born: null },
    ]);
  });

  it('reads a CRLF file whose first row is longer than a MiB with its line break, at ingestion and in the output', async () => {
    // No header: the first row is a record of three 400,000-character notes, an e-mail and a name.
    const note = (c: string) => c.repeat(400_000);
    const csv = `${note('n')},${note('m')},${note('o')},Ada@Example.com,Ada\r\nx,y,z,alan@example.com,Alan\r\n`;
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'notes.csv', input_has_header: false },
    });
    expect((await upload(run.body, Buffer.from(csv))).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    const opened = (await review.state()).body;
    expect(opened.source_headers).toEqual(['column_1', 'column_2', 'column_3', 'column_4', 'column_5']);
    expect((await review.edit({ email: 'column_4', first_name: 'column_5', age: null, born: null }, opened.mapping_version)).status).toBe(
      200,
    );
    expect((await review.problems(undefined, true)).body).toMatchObject({ status: 'counted', rows_checked: 2, rows_with_problems: 0 });

    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(
      svc,
      org.apiKey,
      run.body.id,
      (r) => (r.status === 'completed' || r.status === 'failed') && r.stage === 'final',
    );
    expect(done).toMatchObject({ status: 'completed', total_rows: 2 });
    expect(await (await fetch(done.download_url)).json()).toEqual([
      { email: 'ada@example.com', first_name: 'ADA', age: null, born: null },
      { email: 'alan@example.com', first_name: 'ALAN', age: null, born: null },
    ]);
  });
});
