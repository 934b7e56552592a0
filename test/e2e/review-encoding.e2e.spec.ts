import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { runStreamId, type StoredEvent } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { call, reviewApi, serviceWithOrganization, upload, waitForRun } from '../support/service-harness';

/**
 * The reviewer's choice of a text file's encoding, when the detected one reads its letters wrong: the
 * headers, preview and mapping follow (each field keeps the column in its place), the output is decoded
 * in the chosen one, and what cannot be chosen says why in the error envelope.
 */
describe("review: choosing a text file's encoding", () => {
  const suite = serviceWithOrganization();

  const events = async (runId: string): Promise<StoredEvent[]> => suite.svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(runId));

  /** Italian, in windows-1252: "Città" and "Forlì" read "Cittŕ" and "Forlě" in windows-1250. */
  const ITALIAN = 'E-mail,Nome,Anni,Città\nnic@x.org,Niccolò,30,Forlì\nada@x.org,Ada,36,Cantù\n';

  async function review(filename: string, bytes: Buffer) {
    const run = await call(`${suite.svc.baseUrl}/v1/transformations/file`, {
      token: suite.org.apiKey,
      body: { schema_id: suite.org.schemaId, filename },
    });
    expect((await upload(run.body, bytes)).status).toBe(200);
    await waitForRun(suite.svc, suite.org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const api = reviewApi(run.body.review_url);
    return { runId: run.body.id as string, api, choose: (body: unknown) => call(api.at('encoding'), { method: 'POST', body }) };
  }

  it('reads a windows-1252 file whose first accented letters come after its first 64 KiB in windows-1252, not as broken UTF-8', async () => {
    const rows = Array.from({ length: 8_000 }, (_, i) => `p${i}@x.org,Person${i},${20 + (i % 50)},Rome`);
    rows[7_499] = 'nic@x.org,Niccolò,30,Città';
    const file = iconv.encode(`E-mail,Nome,Anni,City\n${rows.join('\n')}\n`, 'windows-1252');
    expect(file.indexOf(0xf2)).toBeGreaterThan(64 * 1024); // the first byte past ASCII: "ò"
    const { api } = await review('people.csv', file);
    const opened = (await api.state()).body;
    expect(opened).toMatchObject({ encoding: 'windows-1252', total_rows: 8_000, source_headers: ['E-mail', 'Nome', 'Anni', 'City'] });
    const mapping_rule = { email: 'E-mail', first_name: 'Nome', age: 'Anni' };
    expect((await api.edit(mapping_rule)).status).toBe(200);
    // Rows from data row 7,491 on (offset 7,490): the tenth is the accented one, data row 7,500.
    const page = await call(api.at('preview'), { method: 'POST', body: { mapping_rule, offset: 7_490 } });
    expect(page.status).toBe(200);
    expect(page.body.rows[9].first_name.value).toBe('NICCOLÒ');
  });

  it('reads a Shift_JIS file whose first Japanese name comes after its first 64 KiB in Shift_JIS, through review and output', async () => {
    // Failed before as "not valid UTF-8": the read again past the ASCII head took code pages of one byte only.
    const family = ['佐藤', '鈴木', '高橋', '田中', '伊藤', '渡辺', '山本', '中村', '小林', '加藤'];
    const given = ['太郎', '花子', '健一', '美咲', '翔太', 'さくら', '大輔', 'ゆかり', '拓也', '明美', '直樹'];
    const cities = ['東京都新宿区', '大阪府大阪市', '北海道札幌市', '福岡県福岡市', '愛知県名古屋市', '京都府京都市', '神奈川県横浜市'];
    const rows = Array.from({ length: 4_000 }, (_, i) => `p${i}@x.org,Person${i},${20 + (i % 50)},Tokyo`);
    for (let i = 3_000; i < 4_000; i++) rows[i] = `p${i}@x.org,${family[i % 10]}${given[i % 11]},${30 + (i % 10)},${cities[i % 7]}`;
    const file = iconv.encode(`E-mail,Nome,Anni,City\n${rows.join('\n')}\n`, 'shift_jis');
    expect(file.findIndex((b) => b >= 0x80)).toBeGreaterThan(64 * 1024);
    const { runId, api } = await review('people.csv', file);
    const opened = (await api.state()).body;
    expect(opened).toMatchObject({ encoding: 'shift_jis', total_rows: 4_000, source_headers: ['E-mail', 'Nome', 'Anni', 'City'] });
    // A code page of two bytes a character is read as one detected from the top: no other encoding is offered.
    expect(opened.encodings).toEqual([]);
    const mapping_rule = { email: 'E-mail', first_name: 'Nome', age: 'Anni' };
    expect((await api.edit(mapping_rule)).status).toBe(200);
    const page = await call(api.at('preview'), { method: 'POST', body: { mapping_rule, offset: 2_999 } });
    expect(page.status).toBe(200);
    expect(page.body.rows.slice(0, 3).map((r: { first_name: { value: string } }) => r.first_name.value)).toEqual([
      'PERSON2999',
      '佐藤拓也', // data row 3,001 (i = 3,000): family[0], given[8]
      '鈴木明美',
    ]);
    expect((await api.approve()).status).toBe(200);
    const done = await waitForRun(suite.svc, suite.org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    const records = (await (await fetch(done.download_url)).json()) as { first_name: string }[];
    expect(records).toHaveLength(4_000);
    expect(records[3_000].first_name).toBe('佐藤拓也');
    expect(records[3_999].first_name).toBe(`${family[3_999 % 10]}${given[3_999 % 11]}`);
  });

  it('reads the file in the encoding chosen: headers, preview and mapping follow, and the output is decoded in it', async () => {
    const { runId, api, choose } = await review('people.csv', iconv.encode(ITALIAN, 'windows-1252'));
    const opened = (await api.state()).body;
    expect(opened).toMatchObject({ encoding: 'windows-1252', source_headers: ['E-mail', 'Nome', 'Anni', 'Città'] });
    expect(opened.encodings).toEqual(expect.arrayContaining(['utf-8', 'windows-1252', 'windows-1250', 'windows-1251']));
    expect((await api.edit({ email: 'E-mail', first_name: 'Città', age: 'Anni' })).status).toBe(200);

    const chosen = await choose({ encoding: 'windows-1250' });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({
      encoding: 'windows-1250',
      source_headers: ['E-mail', 'Nome', 'Anni', 'Cittŕ'],
      // The column in its place, under the name it reads now.
      mapping_rule: { email: 'E-mail', first_name: 'Cittŕ', age: 'Anni' },
      total_rows: 2,
    });
    expect((await api.preview()).body.rows[0].first_name.value).toBe('FORLĚ');

    // The same encoding again changes nothing; back to windows-1252, the file reads as it was.
    expect((await choose({ encoding: 'windows-1250' })).status).toBe(200);
    const back = await choose({ encoding: 'windows-1252' });
    expect(back.body).toMatchObject({ source_headers: ['E-mail', 'Nome', 'Anni', 'Città'], mapping_rule: { first_name: 'Città' } });
    expect((await api.preview()).body.rows.map((r: { first_name: { value: string } }) => r.first_name.value)).toEqual(['FORLÌ', 'CANTÙ']);
    expect((await events(runId)).filter((e) => e.type === 'EncodingChosen').map((e) => (e.data as { encoding: string }).encoding)).toEqual([
      'windows-1250',
      'windows-1252',
    ]);

    // Chosen last, windows-1250 is what the output is decoded in.
    expect((await choose({ encoding: 'windows-1250' })).status).toBe(200);
    expect((await api.approve()).status).toBe(200);
    const done = await waitForRun(suite.svc, suite.org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    const records = (await (await fetch(done.download_url)).json()) as { first_name: string }[];
    expect(records.map((r) => r.first_name)).toEqual(['FORLĚ', 'CANTŮ']);
  });

  it('opens a list with a few Russian names in KOI8-R as KOI8-R, and offers the code pages of Cyrillic files to choose from', async () => {
    const russian = 'E-mail,Nome,Anni\nivan@x.org,Иван Петров,30\nolga@x.org,Ольга Смирнова,36\nada@x.org,Ada,41\n';
    const { api, choose } = await review('people.csv', iconv.encode(russian, 'koi8-r'));
    const opened = (await api.state()).body;
    expect(opened.encoding).toBe('koi8-r');
    expect(opened.encodings).toEqual(expect.arrayContaining(['windows-1251', 'koi8-r', 'koi8-u', 'ibm866', 'iso-8859-2', 'iso-8859-7']));
    expect((await api.edit({ email: 'E-mail', first_name: 'Nome', age: 'Anni' })).status).toBe(200);
    expect((await api.preview()).body.rows[0].first_name.value).toBe('ИВАН ПЕТРОВ');
    // Read as windows-1251, the same bytes are other letters; back in KOI8-R they are the names again.
    expect((await choose({ encoding: 'windows-1251' })).status).toBe(200);
    expect((await api.preview()).body.rows[0].first_name.value).not.toBe('ИВАН ПЕТРОВ');
    expect((await choose({ encoding: 'koi8-r' })).status).toBe(200);
    expect((await api.preview()).body.rows[1].first_name.value).toBe('ОЛЬГА СМИРНОВА');
  });

  it("keeps the reviewer's header-row answer: the first row stays a row of data when the file is read in another encoding", async () => {
    const { api, choose } = await review('people.csv', iconv.encode(ITALIAN, 'windows-1252'));
    const headerless = await call(api.at('header'), { method: 'POST', body: { input_has_header: false } });
    expect(headerless.body).toMatchObject({ input_has_header: false, total_rows: 3 });
    const chosen = await choose({ encoding: 'windows-1250' });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ encoding: 'windows-1250', input_has_header: false, total_rows: 3 });
    expect(chosen.body.source_headers).toEqual(headerless.body.source_headers);
    // The first row, read in windows-1250, is data: its "Città" is a value now ("Cittŕ").
    expect((await api.preview()).body.rows).toHaveLength(3);
  });

  it("drops a UTF-8 file's byte-order mark in any encoding chosen: the first column keeps its name, and pages and output read from the index", async () => {
    // Enough rows that the review keeps a row index and reads pages from its byte offsets.
    const rows = Array.from({ length: 3000 }, (_, i) => `p${i}@x.org,Name${i},${20 + (i % 50)},Roma`);
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(['E-mail,Nome,Anni,Città', ...rows].join('\n') + '\n')]);
    const { api, choose } = await review('bom.csv', bytes);
    expect((await api.state()).body).toMatchObject({ encoding: 'utf-8', source_headers: ['E-mail', 'Nome', 'Anni', 'Città'] });
    const chosen = await choose({ encoding: 'windows-1252' });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ encoding: 'windows-1252', total_rows: 3000 });
    // The mark is gone; the à of the last name reads in windows-1252's letters, as chosen.
    expect(chosen.body.source_headers.slice(0, 3)).toEqual(['E-mail', 'Nome', 'Anni']);
    expect(chosen.body.source_headers[3]).toMatch(/^CittÃ/);
    expect((await api.edit({ email: 'E-mail', first_name: 'Nome', age: 'Anni' })).status).toBe(200);
    const first = (await api.preview()).body.rows[0];
    expect(first.email.value).toBe('p0@x.org');
    // A page far into the file starts at the index's byte offsets: its rows are whole.
    const far = (await call(api.at('preview'), { method: 'POST', body: { offset: 2990 } })).body.rows;
    expect(far.map((r: { email: { value: string } }) => r.email.value)).toEqual(rows.slice(2990).map((r) => r.split(',')[0]));
  });

  it('refuses an encoding the file cannot be read in, one not offered, and a choice where there is none, in the envelope', async () => {
    const { runId, api, choose } = await review('people.csv', iconv.encode(ITALIAN, 'windows-1252'));
    const version = (await api.state()).body.mapping_version;

    // à (E0) starts no UTF-8 character: the message says where; nothing is recorded and the review reads as before.
    const utf8 = await choose({ encoding: 'utf-8' });
    expect([utf8.status, utf8.body.error.code]).toEqual([422, 'encoding_unreadable']);
    expect(utf8.body.error.message).toMatch(/^The file cannot be read as utf-8: .*byte \d+/);
    expect((await api.state()).body).toMatchObject({ encoding: 'windows-1252', mapping_version: version });

    for (const body of [{ encoding: 'utf-16le' }, { encoding: 'Windows-1252' }, { encoding: 7 }, {}]) {
      const refused = await choose(body);
      expect([refused.status, refused.body.error.code, Object.keys(refused.body.error.fields)]).toEqual([
        422,
        'validation_failed',
        ['encoding'],
      ]);
    }
    expect((await events(runId)).filter((e) => e.type === 'EncodingChosen')).toEqual([]);

    // A workbook has no text encoding; a UTF-16 file's rows lie elsewhere in its bytes: neither is offered the choice.
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('People').addRows([
      ['E-mail', 'Nome'],
      ['nic@x.org', 'Niccolò'],
    ]);
    const workbook = await review('people.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    const utf16 = await review('people.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ITALIAN, 'utf16le')]));
    for (const other of [workbook, utf16]) {
      expect((await other.api.state()).body.encodings).toEqual([]);
      const refused = await other.choose({ encoding: 'windows-1252' });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'encoding_not_applicable']);
    }

    // A closed review: the choice is refused as any change is.
    expect((await api.cancel()).status).toBe(200);
    expect((await choose({ encoding: 'windows-1250' })).status).toBe(409);
  });
});
