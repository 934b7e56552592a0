import ExcelJS from 'exceljs';
import { ConsoleClient, organizationWithOwner, PASSWORD } from '../support/console-client';
import { ANTHROPIC_KEY, FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import { PEOPLE_FIELDS, startService, type Service } from '../support/service-harness';

/** The console's "try it" for a schema and "test connection" for an AI provider. */
describe('console: try a file, test a provider', () => {
  let svc: Service;
  let vendor: FakeVendor;
  let owner: ConsoleClient;
  let schemaId: string;
  beforeAll(async () => {
    vendor = new FakeVendor();
    await vendor.start();
    svc = await startService();
    ({ owner } = await organizationWithOwner(svc, 'Tools'));
    schemaId = (await owner.post('/schemas', { name: 'People', fields: PEOPLE_FIELDS })).body.data.id;
  });
  afterAll(async () => {
    await svc?.stop();
    await vendor?.stop();
  });

  const tryFile = (bytes: Buffer | string, filename: string, client = owner, id = schemaId) =>
    client.request('POST', `/schemas/${id}/try?filename=${encodeURIComponent(filename)}`, {
      headers: { 'content-type': 'application/octet-stream' },
      raw: bytes,
    });

  it('shows the headers found, the suggested mapping and the problems of a CSV, without creating a run', async () => {
    const csv = 'E-mail;Years;Birthday\nada@example.com;36;10/12/1815\n;x;\nbob@example.com;41;01/02/1980\n';
    const res = await tryFile(csv, 'people.csv');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      headers: ['E-mail', 'Years', 'Birthday'],
      input_has_header: true,
      rows_above_header: [],
      format: 'delimited',
      delimiter: ';',
      rows_checked: 3,
      suggested_mapping: { email: 'E-mail' },
      problems: { rows_with_problems: 1, by_field: { email: { required: 1, type: 0 } } },
    });
    expect((await owner.get('/runs')).body.meta.total).toBe(0);
  });

  it('leaves a title above the header out of the rows it checks, as a run does', async () => {
    const res = await tryFile('People export\nE-mail;Years\nada@example.com;36\nbob@example.com;41\n', 'titled.csv');
    expect(res.body.data).toMatchObject({
      headers: ['E-mail', 'Years'],
      rows_above_header: ['People export'],
      rows_checked: 2,
      problems: { rows_with_problems: 0 },
    });
  });

  it('reads a file of many rows whole, as a run would (its reading stores a row index beside it: in memory, for a trial)', async () => {
    // 30,000 rows (about 1 MB) are read in many pieces, so the reading keeps a row index; the
    // trial's store once could only be read, and any file past a few hundred rows answered 500.
    const rows = Array.from({ length: 30_000 }, (_, i) => `${i % 7 === 0 ? '' : `p${i}@example.com`};${20 + (i % 50)}`);
    const res = await tryFile(`E-mail;Years\n${rows.join('\n')}\n`, 'many.csv');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      rows_checked: 30_000,
      problems: { rows_with_problems: Math.ceil(30_000 / 7), by_field: { email: { required: Math.ceil(30_000 / 7) } } },
    });
  });

  it('reads a windows-1252 file whose first accented letter comes after its first 64 KiB in windows-1252, as a run does', async () => {
    const rows = Array.from({ length: 4_000 }, (_, i) => `p${i}@example.com;${20 + (i % 50)}`);
    rows[3_999] = 'nic@example.com;Città';
    const bytes = Buffer.from(`E-mail;Years\n${rows.join('\n')}\n`, 'latin1');
    expect(bytes.indexOf(0xe0)).toBeGreaterThan(64 * 1024);
    const res = await tryFile(bytes, 'people.csv');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ encoding: 'windows-1252', headers: ['E-mail', 'Years'], rows_checked: 4_000 });
  });

  it('reads a workbook the same way, from its first visible sheet with data', async () => {
    const book = new ExcelJS.Workbook();
    const notes = book.addWorksheet('Notes', { state: 'hidden' });
    for (const line of ['Notes', 'a', 'b', 'c']) notes.addRow([line]);
    const sheet = book.addWorksheet('People');
    sheet.addRow(['Email', 'Age']);
    sheet.addRow(['ada@example.com', 36]);
    sheet.addRow(['not-an-email', 'old']);
    const bytes = Buffer.from(await book.xlsx.writeBuffer());
    const res = await tryFile(bytes, 'people.xlsx');
    expect(res.body.data).toMatchObject({
      headers: ['Email', 'Age'],
      format: 'xlsx',
      rows_checked: 2,
      problems: { rows_with_problems: 1 },
    });
  });

  it('refuses an empty file, a binary file and an unknown extension with clear errors; JSON routes refuse raw bytes', async () => {
    expect(await tryFile('', 'people.csv')).toMatchObject({ status: 422, body: { error: { code: 'source_file_empty' } } });
    const binary = await tryFile(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
      'people.csv',
    );
    expect(binary.status).toBe(422);
    expect(binary.body.error.message).toEqual(expect.any(String));
    expect(await tryFile('a,b\n1,2\n', 'people.pdf')).toMatchObject({
      status: 422,
      body: { error: { fields: { filename: expect.any(Array) } } },
    });
    const elsewhere = await owner.request('POST', '/schemas', { headers: { 'content-type': 'application/octet-stream' }, raw: 'a,b' });
    expect([elsewhere.status, elsewhere.body.error.message]).toEqual([415, 'Request bodies must be application/json.']);
    // The file sent as what it is (text/csv): the 415 says what this route takes, not JSON (a probe's finding).
    for (const type of ['text/csv', 'application/json'])
      expect(
        await owner.request('POST', `/schemas/${schemaId}/try?filename=a.csv`, {
          headers: { 'content-type': type },
          raw: type === 'text/csv' ? 'a,b\n1,2\n' : '{}',
        }),
      ).toMatchObject({
        status: 415,
        body: {
          error: {
            code: 'unsupported_media_type',
            message: 'Send the file itself as the body, with Content-Type: application/octet-stream.',
          },
        },
      });
  });

  it("is owners' and admins' and the organization's own: viewers 403, another organization's schema 404", async () => {
    const invitation = (await owner.post('/invitations', { email: 'viewer-tools@example.com', role: 'viewer' })).body.data;
    const viewer = new ConsoleClient(svc.baseUrl);
    await viewer.accept(invitation.url, 'V', PASSWORD);
    expect((await tryFile('a\n1\n', 'a.csv', viewer)).status).toBe(403);
    const { owner: stranger } = await organizationWithOwner(svc, 'Stranger');
    expect((await tryFile('a\n1\n', 'a.csv', stranger)).status).toBe(404);
  });

  it('tests a provider: the vendor answered, the key was refused, or the model is unknown; the key never shows', async () => {
    const add = async (body: Record<string, unknown>) =>
      (await owner.post('/providers', { base_url: body.provider === 'openai' ? `${vendor.baseUrl}/v1` : vendor.baseUrl, ...body })).body
        .data;
    const good = await add({ name: 'OpenAI', provider: 'openai', model: 'gpt-4o-mini', api_key: OPENAI_KEY });
    expect(good).toMatchObject({ has_api_key: true });
    expect(JSON.stringify(good)).not.toContain(OPENAI_KEY);
    const ok = await owner.post(`/providers/${good.id}/test`);
    expect(ok.body.data).toMatchObject({ ok: true, duration_ms: expect.any(Number) });
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);

    const badKey = await add({ name: 'Anthropic', provider: 'anthropic', model: 'claude-x', api_key: 'sk-ant-wrong' });
    const refused = (await owner.post(`/providers/${badKey.id}/test`)).body.data;
    expect(refused).toMatchObject({ ok: false, message: 'The vendor refused the API key. Check that it is right and active.' });
    expect(JSON.stringify(refused)).not.toContain('sk-ant-wrong');

    const right = await owner.put(`/providers/${badKey.id}`, {
      name: 'Anthropic',
      provider: 'anthropic',
      model: 'claude-x',
      api_key: ANTHROPIC_KEY,
      base_url: vendor.baseUrl,
    });
    expect(right.status).toBe(200);
    expect((await owner.post(`/providers/${badKey.id}/test`)).body.data.ok).toBe(true);
    const noKey = await add({ name: 'Keyless', provider: 'openai', model: 'gpt-4o-mini' });
    expect((await owner.post(`/providers/${noKey.id}/test`)).body.data).toMatchObject({
      ok: false,
      message: expect.stringContaining('No API key'),
    });
  });
});
