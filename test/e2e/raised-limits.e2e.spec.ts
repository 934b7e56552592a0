import ExcelJS from 'exceljs';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * An operator raises a hostile-file limit (MAX_COLUMNS): a workbook wider than the default 1,000 columns is read at
 * ingestion, and every later read of its rows (the preview, the count, the output in the worker threads) reads it under
 * the same limit. Before the read's limits were recorded with it, such a run failed after approval.
 */
describe('a workbook under a raised column limit', () => {
  const COLUMNS = 1200;
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    svc = await startService({ MAX_COLUMNS: '2000' });
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
    const done = await waitForRun(svc, org.apiKey, run.body.id, (r) => r.status !== 'processing' && r.stage === 'final');
    expect(done).toMatchObject({ status: 'completed', total_rows: 1 });
    expect(await (await fetch(done.download_url)).json()).toEqual([
      { email: 'grace@example.com', first_name: 'GRACE', age: null, born: null },
    ]);
  });
});
