import ExcelJS from 'exceljs';
import Papa from 'papaparse';
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

/** A schema with a number_format, a percentage, an integer with explicit separators, a phone and a country field (docs/api.md). */
const FIELDS = {
  price: { description: 'Price', data_type: 'number', is_required: false, number_format: { locale: 'de-DE', currency: true } },
  share: { description: 'Share', data_type: 'number', is_required: false, number_format: { locale: 'fr-FR', percent: true } },
  qty: { description: 'Quantity', data_type: 'integer', is_required: false, number_format: { decimal: ',' } },
  plain: { description: 'Plain number', data_type: 'number', is_required: false },
  phone: { description: 'Phone', data_type: 'phone', is_required: false, default_region: 'DE' },
  country: { description: 'Country', data_type: 'country', is_required: false, country_format: 'alpha3' },
};

const FILE = [
  'Preis,Anteil,Menge,Zahl,Telefon,Land',
  '"€ 1.234,56",12 %,1.234,12.5,030 123456,Deutschland',
  '"(12,50)","7,5 %",3,1e3,+1 212-555-0100,Suisse',
  '"$1,337.00",12,"2,0",abc,call me,Atlantis',
  '"1\u202f234,5 €",100%,7,-3,0049 30 1234567,es',
].join('\r\n');

describe('number formats, phone numbers and countries, end to end over HTTP', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc, FIELDS);
  });
  afterAll(() => svc.stop());

  const mapping = { price: 'Preis', share: 'Anteil', qty: 'Menge', plain: 'Zahl', phone: 'Telefon', country: 'Land' };

  async function reviewed(outputFormat: 'json' | 'csv') {
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'orders.csv', output_format: outputFormat },
    });
    expect(created.status).toBe(201);
    expect((await upload(created.body, FILE)).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    return { id: created.body.id as string, review: reviewApi(ready.review_url) };
  }

  it('JSON output has numbers, E.164 and country codes; the values that do not read are problems, kept as read; a bulk fix reads "$1,337.00"', async () => {
    const { id, review } = await reviewed('json');
    // The page preselects the field's decimal mark for its "normalise numbers" fix.
    const fields = (await review.state()).body.fields as { name: string; decimal_mark?: string }[];
    expect(Object.fromEntries(fields.map((f) => [f.name, f.decimal_mark ?? null]))).toMatchObject({
      price: ',',
      share: ',',
      qty: ',',
      plain: null,
    });
    const counted = await review.problems(mapping, true);
    expect(counted.status).toBe(200);
    expect(counted.body.problems_by_field).toMatchObject({ price: 1, share: 0, qty: 0, plain: 1, phone: 1, country: 1 });

    // "$1,337.00" is no German number: the reviewer reads the column's amounts with a decimal point, in one action.
    const fixed = await review.fix('price', { kind: 'normalise', normaliser: 'amount', decimal_separator: '.' });
    expect(fixed.status).toBe(200);
    expect((await review.problems(mapping, true)).body.problems_by_field).toMatchObject({ price: 0 });

    expect((await review.approve(mapping)).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, id, (r) => r.status === 'completed');
    const records = await (await fetch(done.download_url)).json();
    expect(records).toEqual([
      { price: 1234.56, share: 0.12, qty: 1234, plain: 12.5, phone: '+4930123456', country: 'DEU' },
      { price: -12.5, share: 0.075, qty: 3, plain: 1000, phone: '+12125550100', country: 'CHE' },
      { price: 1337, share: 0.12, qty: 2, plain: 'abc', phone: 'call me', country: 'Atlantis' },
      { price: 1234.5, share: 1, qty: 7, plain: -3, phone: '+49301234567', country: 'ESP' },
    ]);
  });

  it('CSV output writes these fields normalised, numbers with a "." decimal point; other fields and problems as read', async () => {
    const { id, review } = await reviewed('csv');
    expect((await review.approve(mapping)).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, id, (r) => r.status === 'completed');
    const download = await fetch(done.download_url);
    // Named as S3 names it: the run's id and the format.
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${done.id}.csv"`);
    const text = await download.text();
    const { data } = Papa.parse<string[]>(text.trim(), { skipEmptyLines: true });
    expect(data).toEqual([
      ['price', 'share', 'qty', 'plain', 'phone', 'country'],
      ['1234.56', '0.12', '1234', '12.5', '+4930123456', 'DEU'],
      ['-12.5', '0.075', '3', '1e3', '+12125550100', 'CHE'],
      ['$1,337.00', '0.12', '2', 'abc', 'call me', 'Atlantis'],
      ['1234.5', '1', '7', '-3', '+49301234567', 'ESP'],
    ]);
  });

  it("reads a workbook's number cells as the numbers they are, and its text cells in the field's number_format", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Orders');
    ws.addRow(['Preis', 'Anteil', 'Menge']);
    ws.addRow([1.234, 0.12, 1234]);
    ws.addRow([1234.5, 0.075, 3]);
    ws.addRow(['1.234,56 €', '12 %', '1.234']);
    ws.getColumn(2).numFmt = '0%';
    ws.getColumn(1).numFmt = '#,##0.00 [$€-407]';
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'orders.xlsx' },
    });
    expect((await upload(created.body, Buffer.from(await wb.xlsx.writeBuffer()))).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(ready.review_url);
    const wbMapping = { price: 'Preis', share: 'Anteil', qty: 'Menge', plain: null, phone: null, country: null };
    // The text cell 1.234 reads as the plain number a number cell 1.234 is, which no integer is: a problem, as the reader
    // cannot tell the two apart (until 2026-12-03 both were 1234, and a number cell 1.234 grew a thousandfold unsaid).
    expect((await review.problems(wbMapping, true)).body.problems_by_field).toMatchObject({ price: 0, share: 0, qty: 1 });
    expect((await review.approve(wbMapping)).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'completed');
    // Read as German text, the cell 1.234 was 1234, and the cell 0.12 (shown 12%) read as a percent was 0.0012.
    expect(
      (await (await fetch(done.download_url)).json()).map(({ price, share, qty }: Record<string, unknown>) => ({ price, share, qty })),
    ).toEqual([
      { price: 1.234, share: 0.12, qty: 1234 },
      { price: 1234.5, share: 0.075, qty: 3 },
      { price: 1234.56, share: 0.12, qty: '1.234' },
    ]);
  });

  it('refuses bad format options with 422 and a message per option', async () => {
    const res = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: {
        name: 'Bad',
        fields: {
          a: { description: 'a', data_type: 'number', is_required: false, number_format: { locale: 'xx-!!', currency: 'yes' } },
          b: { description: 'b', data_type: 'number', is_required: false, number_format: { decimal: ',', group: ',' } },
          c: { description: 'c', data_type: 'string', is_required: false, number_format: { locale: 'de-DE' } },
          d: { description: 'd', data_type: 'phone', is_required: false, default_region: 'Germany' },
          e: { description: 'e', data_type: 'country', is_required: false, country_format: 'iso' },
          f: { description: 'f', data_type: 'number', is_required: false, number_format: {} },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.fields).toEqual({
      'fields.a.number_format.locale': ['number_format.locale must be a locale such as "de-DE", "fr-CH" or "en-IN".'],
      'fields.a.number_format.currency': ['number_format.currency must be true or false.'],
      'fields.b.number_format.group': ['number_format.group must differ from number_format.decimal.'],
      'fields.c.number_format': ['number_format is only for data_type "number" or "integer".'],
      'fields.d.default_region': ['default_region must be an ISO 3166 alpha-2 region code in capitals, such as "DE".'],
      'fields.e.country_format': ['country_format must be one of alpha2, alpha3, name.'],
      'fields.f.number_format': ['number_format needs a locale or a decimal separator (decimal).'],
    });
  });
});
