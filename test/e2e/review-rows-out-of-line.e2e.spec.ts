import ExcelJS from 'exceljs';
import { runStreamId, type SourceParsed } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { call, reviewApi, serviceWithOrganization, upload, waitForRun } from '../support/service-harness';

/**
 * Rows whose cells do not line up with the file's first row: counted as ingestion reads the file and
 * told on the review, numbered as the review numbers its rows, with the unnamed columns the extra
 * values went to. A row broken by an unquoted comma must not reach the output unnoticed.
 */
describe('review: rows that do not line up with the first row', () => {
  const suite = serviceWithOrganization();

  async function review(filename: string, bytes: Buffer) {
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/file`, {
      token: suite.org.apiKey,
      body: { schema_id: suite.org.schemaId, filename },
    });
    expect((await upload(run.body, bytes)).status).toBe(200);
    await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.review_state === 'active');
    return { runId: run.body.id as string, api: reviewApi(run.body.review_url) };
  }

  const sourceParsed = async (runId: string) => {
    const events = await suite.svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(runId));
    return events.find((e) => e.type === 'SourceParsed')!.data as SourceParsed;
  };

  // Data row 2 has an unquoted comma in its name; data row 4 lost its last cell.
  const BROKEN = 'E-mail,Name,Age\nada@x.org,Ada,36\nalan@x.org,Turing, Alan,41,extra\ngrace@x.org,Grace,45\nlinus@x.org,Linus\n';

  it('says how many rows are longer and shorter, the first of each, and where the extra values are', async () => {
    const { runId, api } = await review('people.csv', Buffer.from(BROKEN));
    const state = (await api.state()).body;
    expect(state.source_headers).toEqual(['E-mail', 'Name', 'Age', 'column_4', 'column_5']);
    expect(state.rows_out_of_line).toEqual({
      first_row_cells: 3,
      longer_rows: 1,
      first_longer_row: 2,
      extra_columns: ['column_4', 'column_5'],
      shorter_rows: 1,
      first_shorter_row: 4,
    });
    // The event numbers the file's rows (1 = the header); the review numbers data rows, as its tables do.
    expect((await sourceParsed(runId)).row_shape).toEqual({
      first_row_cells: 3,
      longer_rows: 1,
      first_longer_row: 3,
      shorter_rows: 1,
      first_shorter_row: 5,
      values_width: 5,
    });
    // The same number as the review's own rows: the long row's age reads " Alan", that row's problem.
    const mapping_rule = { email: 'E-mail', first_name: 'Name', age: 'Age' };
    expect((await api.edit(mapping_rule)).status).toBe(200);
    const rows = await api.problemRows({ mapping_rule, field: 'age', kind: 'type', page: 1, per_page: 20 });
    expect(rows.status).toBe(200);
    expect(rows.body.rows.map((r: { row: number }) => r.row)).toContain(2);
    // Read again in another encoding, the file's rows are counted again (EncodingChosen carries them).
    const reread = await call(api.at('encoding'), { method: 'POST', body: { encoding: 'windows-1252' } });
    expect(reread.status).toBe(200);
    expect(reread.body.rows_out_of_line).toEqual(state.rows_out_of_line);
  });

  it('numbers the rows from the first when the reviewer says the first row is data', async () => {
    const { api } = await review('people.csv', Buffer.from(BROKEN));
    const headerless = await call(api.at('header'), { method: 'POST', body: { input_has_header: false } });
    expect(headerless.status).toBe(200);
    expect(headerless.body.rows_out_of_line).toMatchObject({
      first_longer_row: 3,
      first_shorter_row: 5,
      extra_columns: ['column_4', 'column_5'],
    });
  });

  it('says nothing of a file whose rows all line up, nor of empty cells at the end of a row', async () => {
    const files = [
      'E-mail,Name,\nada@x.org,Ada,\ngrace@x.org,Grace,\n', // a delimiter at the end of every line
      'E-mail,Name\nada@x.org,Ada,\ngrace@x.org,Grace, \n', // at the end of every data line only
      'E-mail,Name,\nada@x.org,Ada\ngrace@x.org,Grace\n', // at the end of the header only
    ];
    for (const file of files) {
      const even = await review('people.csv', Buffer.from(file));
      const evenState = (await even.api.state()).body;
      expect(evenState.rows_out_of_line).toBeNull();
      // Nor is the empty cell at the end of a line a column of its own (it was column_3, empty in every row).
      expect(evenState.source_headers).toEqual(['E-mail', 'Name']);
      expect((await sourceParsed(even.runId)).row_shape).toBeUndefined();
    }
    // A row broken under a header that ends with a delimiter: its last value is in a column the header does not name.
    const broken = await review('people.csv', Buffer.from('E-mail,Name,Age,\nada@x.org,Ada,36\nalan@x.org,Turing, Alan,41\n'));
    const header = await call(broken.api.at('header'), { method: 'POST', body: { input_has_header: true } });
    expect(header.body.rows_out_of_line).toEqual({
      first_row_cells: 3,
      longer_rows: 1,
      first_longer_row: 2,
      extra_columns: ['column_4'],
      shorter_rows: 0,
      first_shorter_row: null,
    });
    // The same among more rows: one broken row in the sample leaves the header guessed a header, and the row told.
    const people = Array.from({ length: 14 }, (_, i) => `p${i}@x.org,Person ${i},${30 + i}`);
    people.splice(6, 0, 'alan@x.org,Turing, Alan,41');
    const guessed = await review('people.csv', Buffer.from(['E-mail,Name,Age,', ...people, ''].join('\n')));
    const guessedState = (await guessed.api.state()).body;
    expect(guessedState.input_has_header).toBe(true);
    expect(guessedState.rows_out_of_line).toMatchObject({ longer_rows: 1, first_longer_row: 7, extra_columns: ['column_4'] });
    // A broken row that ends with many delimiters: the columns past its last value are empty in every row.
    const trailing = await review('people.csv', Buffer.from('E-mail,Name,Age\nada@x.org,Ada,36\nalan@x.org,Turing, Alan,41,,,,\n'));
    const trailingState = (await trailing.api.state()).body;
    // Since 2026-12-03 those are no columns (they were column_5 to column_8, empty, to map).
    expect(trailingState.source_headers).toEqual(['E-mail', 'Name', 'Age', 'column_4']);
    expect(trailingState.rows_out_of_line).toMatchObject({ longer_rows: 1, extra_columns: ['column_4'] });
    // A sheet saved from a used range far wider than its data: 1,500 delimiters end every line, past the column limit
    // (1,000). Those cells hold nothing: the run is read (it failed with source_too_many_columns) with its three columns.
    const used = ','.repeat(1500);
    const wide = await review('people.csv', Buffer.from(`E-mail,Name,Age${used}\nada@x.org,Ada,36${used}\nalan@x.org,Alan,41${used}\n`));
    const wideState = (await wide.api.state()).body;
    expect(wideState.source_headers).toEqual(['E-mail', 'Name', 'Age']);
    expect(wideState.rows_out_of_line).toBeNull();
    // Broken past the header's cells too: its values from the header's empty cell on have no column name.
    const past = await review('people.csv', Buffer.from('E-mail,Name,Age,\nada@x.org,Ada,36\nalan@x.org,Turing, Alan,41,x\n'));
    const pastHeader = await call(past.api.at('header'), { method: 'POST', body: { input_has_header: true } });
    expect(pastHeader.body.rows_out_of_line).toMatchObject({ first_row_cells: 3, longer_rows: 1, extra_columns: ['column_4', 'column_5'] });
    // A file without a header whose first record lacks its last value: read as data, that cell is there, missing.
    const headerless = await review('people.csv', Buffer.from('ann@x.org,Ann,\nbob@x.org,Bob,555\ncid@x.org,Cid,556\n'));
    const headerlessState = (await headerless.api.state()).body;
    expect(headerlessState.input_has_header).toBe(false);
    expect(headerlessState.rows_out_of_line).toBeNull();
    // A value past the header's cells is still told, after an empty one.
    const late = await review('people.csv', Buffer.from('E-mail,Name\nada@x.org,Ada,,\ngrace@x.org,Grace,,note\n'));
    expect((await late.api.state()).body.rows_out_of_line).toMatchObject({ longer_rows: 1, first_longer_row: 2, shorter_rows: 0 });
  });

  it("tells a workbook's rows with values past the header's columns, not its rows that end early", async () => {
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('People');
    sheet.addRow(['E-mail', 'Name', 'Age']);
    sheet.addRow(['ada@x.org', 'Ada']);
    sheet.addRow(['alan@x.org', 'Alan', 41, null, 'note']);
    sheet.addRow(['grace@x.org', 'Grace', 45]);
    const even = wb.addWorksheet('Even');
    even.addRow(['E-mail', 'Name']);
    even.addRow(['ada@x.org', 'Ada']);
    const { api } = await review('people.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    // Each sheet as it is read: the count follows the reviewer's choice of sheet (SheetChosen carries it).
    const chooseSheet = (name: string) => call(api.at('sheet'), { method: 'POST', body: { sheet: name } });
    expect((await chooseSheet('Even')).body.rows_out_of_line).toBeNull();
    expect((await chooseSheet('People')).status).toBe(200);
    expect((await api.state()).body.rows_out_of_line).toEqual({
      first_row_cells: 3,
      longer_rows: 1,
      first_longer_row: 2,
      extra_columns: ['column_4', 'column_5'],
      shorter_rows: 0,
      first_shorter_row: null,
    });
  });
});
