import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { runStreamId, type StoredEvent } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { RunSweeper } from '../../apps/ingestion/src/run-sweeper';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  ADMIN_TOKEN,
  PEOPLE_FIELDS,
  call,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';

const RUN_FIELDS = [
  'id',
  'status',
  'terminal',
  'stage',
  'schema_id',
  'provider_id',
  'dry_run',
  'input_source',
  'metadata',
  'review_url',
  'review_state',
  'review_canceled_at',
  'review_approved_at',
  'review_expires_at',
  'output_format',
  'mapping_rule',
  'source_headers',
  'input_has_header',
  'total_rows',
  'processed_rows',
  'rows_excluded', // an addition to the spec's fields (docs/api.md)
  'error',
  'notification_status',
  'download_url',
  'file_retention_until',
  'started_at',
  'completed_at',
  'failed_at',
];

describe('structured-file run, end to end over HTTP', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());

  const create = (body: object) =>
    call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, body: { schema_id: org.schemaId, ...body } });

  it('CSV with a header to JSON: create, upload, review, edit, approve, download', async () => {
    const created = await create({ filename: 'People.CSV', metadata: { batch: 7 }, column_labels: { age: 'Age (years)' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['id', 'input_source', 'review_url', 'schema_id', 'stage', 'status', 'upload'].sort());
    expect(created.body).toMatchObject({ status: 'awaiting_upload', stage: 'review', input_source: 'upload', schema_id: org.schemaId });
    expect(Object.keys(created.body.upload).sort()).toEqual(['expires_at', 'headers', 'method', 'url']);

    // Read-your-writes: the run is there at once, with every field of the resource.
    const first = await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey });
    expect(first.status).toBe(200);
    expect(
      Object.keys(first.body)
        .filter((k) => k !== 'upload')
        .sort(),
    ).toEqual([...RUN_FIELDS].sort());
    expect(first.body).toMatchObject({
      status: 'awaiting_upload',
      terminal: false,
      review_state: null,
      mapping_rule: null,
      source_headers: [],
      input_has_header: null,
      total_rows: null,
      processed_rows: 0,
      error: null,
      download_url: null,
      file_retention_until: null,
      metadata: { batch: 7 },
      provider_id: null,
      dry_run: false,
      output_format: 'json',
      started_at: null,
      notification_status: null,
    });
    expect(first.body.upload.method).toBe('PUT');

    const csv =
      '\uFEFFE-Mail;First Name;Age;Born;Notes\r\n  ANN@Example.COM ;ann;34;17/05/1990;"semi;colon"\r\nbob@example.com;bob;forty;01/02/2000;"multi\nline"\r\n;carl;;;\r\n';
    expect((await upload(created.body, csv)).status).toBe(200);
    // Read-your-writes for the upload too: once it is answered, the run no longer offers an upload.
    const uploaded = await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey });
    expect(uploaded.body.status).not.toBe('awaiting_upload');
    expect(uploaded.body.upload).toBeUndefined();
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({
      status: 'completed',
      stage: 'review',
      terminal: false,
      source_headers: ['E-Mail', 'First Name', 'Age', 'Born', 'Notes'],
      input_has_header: true,
      total_rows: 3,
      mapping_rule: { email: 'E-Mail', first_name: 'First Name', age: 'Age', born: 'Born' },
    });
    expect(ready.upload).toBeUndefined();
    expect(Date.parse(ready.review_expires_at)).toBeGreaterThan(Date.now());

    const review = reviewApi(ready.review_url);
    const state = await review.state();
    expect(state.body.fields.find((f: any) => f.name === 'age').label).toBe('Age (years)');
    expect(state.body.fields.find((f: any) => f.name === 'email').label).toBe('Email');
    // The reviewer unmaps "born", then approves exactly what the page shows.
    const edited = await review.edit({ ...ready.mapping_rule, born: null });
    expect(edited.status).toBe(200);
    expect((await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey })).body.mapping_rule.born).toBeNull();
    const approved = await review.approve({ ...ready.mapping_rule, born: null });
    expect(approved.status).toBe(200);

    const done = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done).toMatchObject({ review_state: 'approved', terminal: true, processed_rows: 3, error: null });
    expect(done.review_approved_at).toEqual(expect.any(String));
    expect(done.completed_at).toEqual(expect.any(String));
    expect(Date.parse(done.file_retention_until)).toBeGreaterThan(Date.now());
    const download = await fetch(done.download_url);
    expect(download.status).toBe(200);
    expect(await download.json()).toEqual([
      { email: 'ann@example.com', first_name: 'ANN', age: 34, born: null },
      { email: 'bob@example.com', first_name: 'BOB', age: 'forty', born: null },
      { email: null, first_name: 'CARL', age: null, born: null },
    ]);
  });

  it('XLSX without a header row to CSV, with synthetic column names and date transformation', async () => {
    const created = await create({ filename: 'people.xlsx', output_format: 'csv', input_has_header: false });
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    ws.addRow(['ann@x.io', 'Ann', 34, '17/05/1990']);
    ws.addRow(['bob@x.io', 'Bob', 0, '01/02/2000']);
    expect((await upload(created.body, Buffer.from(await wb.xlsx.writeBuffer()))).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({
      source_headers: ['column_1', 'column_2', 'column_3', 'column_4'],
      input_has_header: false,
      total_rows: 2,
    });
    const mapping = { email: 'column_1', first_name: 'column_2', age: 'column_3', born: 'column_4' };
    expect((await reviewApi(ready.review_url).approve(mapping)).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    const text = await (await fetch(done.download_url)).text();
    expect(Papa.parse(text.trim()).data).toEqual([
      ['email', 'first_name', 'age', 'born'],
      ['ann@x.io', 'ANN', '34', '1990-05-17'],
      ['bob@x.io', 'BOB', '0', '2000-02-01'],
    ]);
  });

  it('TSV with a detected header, mapped by the heuristic', async () => {
    const created = await create({ filename: 'export.tsv' });
    await upload(created.body, 'email\tgiven name\tage\tname\nx@y.io\tX\t5\tX Y\n');
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    // "name" is a whole name, no first name (since 2026-12-04 one shared word of two is not enough): "given name" is.
    expect(ready.mapping_rule).toEqual({ email: 'email', first_name: 'given name', age: 'age', born: null });
  });

  it.each([
    ['an empty file', 'empty.csv', '', 'source_file_empty'],
    ['a file of blank lines', 'blank.csv', '\n\n  \n', 'source_file_empty'],
    ['a corrupt XLSX', 'broken.xlsx', 'PK\u0003\u0004 this is not really a zip', 'source_file_unreadable'],
    // Once delivered as two rows of five, the rest of the file one value, with no error.
    ['a closing quote followed by text', 'quotes.csv', 'a,b,c\n1,2,3\n4,"5"x,6\n7,8,9\n10,11,12\n', 'source_file_malformed_quote'],
    // Once read as one data row, "3\n4" a value and "column_4".."column_7" invented headers.
    ['line ends of two kinds', 'mixed.csv', 'a,b,c\r\n1,2,3\n4,5,6\r7,8,9\r\n', 'source_file_mixed_line_endings'],
  ])('%s fails the run with a clear error', async (_name, filename, content, code) => {
    const created = await create({ filename });
    expect((await upload(created.body, content)).status).toBe(200);
    const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed');
    expect(failed).toMatchObject({
      terminal: true,
      review_state: null,
      download_url: null,
      error: { code, stage: 'ingestion', retryable: false },
    });
    expect(failed.failed_at).toEqual(expect.any(String));
    expect(failed.error.message).toEqual(expect.any(String));
  });

  it('a file declared to have a header and holding only it fails source_file_empty; one whose header is only guessed opens its review', async () => {
    const declared = await create({ filename: 'header.csv', input_has_header: true });
    await upload(declared.body, 'email,first_name,age\n\n');
    const failed = await waitForRun(svc, org.apiKey, declared.body.id, (r) => r.status === 'failed');
    expect(failed.error).toMatchObject({ code: 'source_file_empty', message: 'The uploaded file has a header row but no rows of data.' });
    // One record that reads like column names: the review opens (0 rows under the guessed header), where the
    // reviewer can say the first row is data.
    const guessed = await create({ filename: 'one.csv' });
    await upload(guessed.body, 'ann@x.org,Ann,Berlin\n');
    const review = await waitForRun(svc, org.apiKey, guessed.body.id, (r) => r.review_state === 'active');
    expect(review).toMatchObject({ input_has_header: true, total_rows: 0 });
    const asData = await call(reviewApi(review.review_url).at('header'), { method: 'POST', body: { input_has_header: false } });
    expect(asData.body).toMatchObject({ input_has_header: false, total_rows: 1 });
  });

  const sourceEvents = async (runId: string) =>
    (await svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(runId))).filter((e) => e.type === 'SourceUploaded').length;

  it('a re-sent upload of the same bytes answers 200 and starts nothing again; other bytes are 409 upload_content_differs', async () => {
    const created = await create({ filename: 'a.csv' });
    expect((await upload(created.body, 'email\na@b.io\n')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect(await upload(created.body, 'email\na@b.io\n')).toMatchObject({ status: 200, body: '' });
    for (const other of ['email\nc@d.io\n', 'email\na@b.io\nmore\n', 'email\n']) {
      const again = await upload(created.body, other);
      expect(again.status).toBe(409);
      expect(JSON.parse(again.body).error).toMatchObject({
        code: 'upload_content_differs',
        type: 'conflict',
        request_id: expect.any(String),
      });
    }
    expect(await sourceEvents(created.body.id)).toBe(1);
    // Once the run has moved on, the same bytes still answer 200.
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect((await upload(created.body, 'email\na@b.io\n')).status).toBe(200);
    expect(await sourceEvents(created.body.id)).toBe(1);
  });

  it('an upload that landed but was never recorded (the process died in between) is recorded by its re-send, once', async () => {
    const created = await create({ filename: 'a.csv' });
    const { Readable } = await import('node:stream');
    await svc.app.get<BlobStore>(BLOB_STORE).put(`runs/${created.body.id}/source`, Readable.from([Buffer.from('email\na@b.io\n')]));
    expect(await sourceEvents(created.body.id)).toBe(0);
    expect((await upload(created.body, 'email\na@b.io\n')).status).toBe(200);
    expect((await upload(created.body, 'email\na@b.io\n')).status).toBe(200);
    expect(await sourceEvents(created.body.id)).toBe(1);
    expect((await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active')).total_rows).toBe(1);

    // Different bytes after such a landing: the landed file is recorded and processed, the re-send is refused.
    const other = await create({ filename: 'b.csv' });
    await svc.app.get<BlobStore>(BLOB_STORE).put(`runs/${other.body.id}/source`, Readable.from([Buffer.from('email\na@b.io\n')]));
    const refused = await upload(other.body, 'email\nx@y.io\nz@w.io\n');
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).error.code).toBe('upload_content_differs');
    expect(await sourceEvents(other.body.id)).toBe(1);
  });

  it('a download whose file is deleted between its look and its open (the run purged meanwhile) answers 404, and the service goes on', async () => {
    const created = await create({ filename: 'a.csv' });
    expect((await upload(created.body, 'email\na@b.io\n')).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect((await reviewApi(ready.review_url).approve(ready.mapping_rule)).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'completed' && r.stage === 'final');
    const blobs = svc.app.get<BlobStore>(BLOB_STORE);
    const found = blobs.stat.bind(blobs);
    const stat = jest.spyOn(blobs, 'stat').mockImplementationOnce(async (key) => {
      const size = await found(key);
      await blobs.delete(key);
      return size;
    });
    try {
      const gone = await fetch(done.download_url);
      expect(gone.status).toBe(404);
      expect((await gone.json()).error).toMatchObject({ code: 'not_found', type: 'not_found' });
    } finally {
      stat.mockRestore();
    }
    expect((await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey })).status).toBe(200);
  });

  it('a canceled review is read-only and cannot be approved', async () => {
    const created = await create({ filename: 'a.csv' });
    await upload(created.body, 'email\na@b.io\n');
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(ready.review_url);
    expect((await review.cancel()).body.phase).toBe('canceled');
    const approve = await review.approve();
    expect(approve.status).toBe(409);
    expect(approve.body.error).toMatchObject({ code: 'review_canceled', request_id: expect.any(String) });
    expect((await review.edit({ email: null })).status).toBe(409);
    const run = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'canceled');
    expect(run).toMatchObject({ terminal: true, status: 'completed', stage: 'review', download_url: null });
    expect(run.review_canceled_at).toEqual(expect.any(String));
  });
});

describe('upload content type', () => {
  it('refuses an upload whose Content-Type is not exactly the one upload.headers gives (as S3 does: it is signed), unread; then takes the right one', async () => {
    const svc = await startService();
    try {
      const org = await setupOrganization(svc);
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'people.tsv' },
      });
      expect(created.body.upload.headers).toEqual({ 'Content-Type': 'text/tab-separated-values' });
      for (const contentType of ['text/csv', 'text/tab-separated-values; charset=utf-8', 'application/octet-stream']) {
        const wrong = await upload({ upload: { ...created.body.upload, headers: { 'Content-Type': contentType } } }, 'email\na@b.io\n');
        expect(wrong.status).toBe(403);
        expect(JSON.parse(wrong.body).error).toMatchObject({ code: 'upload_content_type_mismatch', type: 'authorization' });
      }
      // No Content-Type at all: refused too, as S3 refuses a request without a header it signed.
      const bare = await fetch(created.body.upload.url, { method: 'PUT', body: new Uint8Array(Buffer.from('email\na@b.io\n')) });
      expect(bare.status).toBe(403);
      expect((await bare.json()).error.code).toBe('upload_content_type_mismatch');
      const run = await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey });
      expect(run.body.status).toBe('awaiting_upload');
      expect((await upload(created.body, 'email\na@b.io\n')).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });
});

describe('upload size limit', () => {
  it('refuses an upload over MAX_UPLOAD_BYTES with 413, and the run fails as the spec says of an oversized file, with its webhook', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    const svc = await startService({ MAX_UPLOAD_BYTES: '100' });
    try {
      const org = await setupOrganization(svc);
      const create = () =>
        call(`${svc.baseUrl}/v1/transformations/file`, {
          token: org.apiKey,
          body: { schema_id: org.schemaId, filename: 'big.csv', notify_url: `${receiver.url}/hook` },
        });
      // Declared too large (Content-Length), and sent in chunks past the limit: both fail the run.
      const declared = (await create()).body;
      const res = await upload(declared, 'email\n' + 'a@b.io\n'.repeat(100));
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('upload_too_large');
      const chunked = (await create()).body;
      const pieces = [Buffer.from('email\n'), Buffer.from('a@b.io\n'.repeat(100))];
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of pieces) controller.enqueue(piece);
          controller.close();
        },
      });
      // A stream has no length: fetch sends it in chunks, without Content-Length.
      const init: RequestInit & { duplex: 'half' } = { method: 'PUT', headers: chunked.upload.headers, body, duplex: 'half' };
      const streamed = await fetch(chunked.upload.url, init);
      expect(streamed.status).toBe(413);
      for (const [run, said] of [
        [declared, `The uploaded file has ${6 + 7 * 100} bytes; at most 100 bytes are allowed.`],
        [chunked, 'The uploaded file has more than 100 bytes; at most 100 bytes are allowed.'],
      ] as const) {
        const failed = await waitForRun(svc, org.apiKey, run.id, (r) => r.status === 'failed');
        expect(failed).toMatchObject({
          terminal: true,
          error: { code: 'source_file_too_large', type: 'source_file', stage: 'ingestion', message: said },
        });
        const [hook] = await receiver.waitFor(run.id, 1);
        expect(JSON.parse(hook.body)).toMatchObject({
          event: 'transformation.failed',
          id: run.id,
          error: { code: 'source_file_too_large' },
        });
        // Nothing more is taken for the run.
        expect((await upload(run, 'email\na@b.io\n')).status).toBe(409);
      }
    } finally {
      await svc.stop();
      await receiver.stop();
    }
  });
});

describe('review expiry', () => {
  it('an expired review shows expired, is terminal and accepts nothing', async () => {
    const svc = await startService({ REVIEW_TTL_SECONDS: '1' });
    try {
      const org = await setupOrganization(svc);
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'a.csv' },
      });
      await upload(created.body, 'email\na@b.io\n');
      const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state !== null);
      const expired = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'expired', 5000);
      expect(expired.terminal).toBe(true);
      const review = reviewApi(ready.review_url);
      expect((await review.state()).body.phase).toBe('expired');
      const approve = await review.approve();
      expect(approve.status).toBe(403);
      expect(approve.body.error.code).toBe('review_expired');
    } finally {
      await svc.stop();
    }
  });
});

/** Files are deleted when their retention ends, once, recorded as FilesPurged (docs/security.md, "Expiry and retention"). */
describe('retention', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService({ OUTPUT_RETENTION_SECONDS: '2', REVIEW_TTL_SECONDS: '4', SWEEP_INTERVAL_MS: '100' });
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());

  const events = (id: string): Promise<StoredEvent[]> => svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(id));
  const stored = async (key: string) => (await svc.app.get<BlobStore>(BLOB_STORE).stat(key)) !== null;
  async function purgedEvent(id: string, timeoutMs = 10_000): Promise<StoredEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await events(id)).find((e) => e.type === 'FilesPurged');
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`Run ${id}: no FilesPurged`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function reviewReady(schemaId = org.schemaId) {
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: schemaId, filename: 'a.csv' },
    });
    expect((await upload(created.body, 'email,first_name\na@b.io,Ada\n')).status).toBe(200);
    await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    return { id: created.body.id as string, review: reviewApi(created.body.review_url) };
  }

  it('deletes the source and the output at file_retention_until, once; the old download URL then answers 410', async () => {
    const { id, review } = await reviewReady();
    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, id, (r) => r.stage === 'final' && r.status === 'completed');
    const downloadUrl = done.download_url as string;
    expect((await fetch(downloadUrl)).status).toBe(200);
    expect(await stored(`runs/${id}/source`)).toBe(true);

    const purged = await purgedEvent(id);
    expect(purged.data).toEqual({
      // The row index beside a delimited source is deleted with it (written only for files past 64 KiB; deleting none is a no-op).
      keys: [`runs/${id}/source`, `runs/${id}/source.row-index`, `runs/${id}/output.json`],
      reason: 'output_retention',
      purged_at: expect.any(String),
    });
    expect(Date.parse((purged.data as { purged_at: string }).purged_at)).toBeGreaterThanOrEqual(Date.parse(done.file_retention_until));
    expect(await stored(`runs/${id}/source`)).toBe(false);
    expect(await stored(`runs/${id}/output.json`)).toBe(false);

    const gone = await fetch(downloadUrl);
    expect(gone.status).toBe(410);
    expect((await gone.json()).error).toMatchObject({ code: 'file_expired', type: 'not_found' });
    // No output file exists now: file_retention_until is null, as the contract says (once the purge is projected).
    const run = await waitForRun(svc, org.apiKey, id, (r) => r.file_retention_until === null);
    expect(run).toMatchObject({ status: 'completed', download_url: null, file_retention_until: null });
    expect(Object.keys(run).sort()).toEqual([...RUN_FIELDS].sort());

    // A sweep again (another replica, a restart) deletes and records nothing more.
    await svc.app.get(RunSweeper).tick();
    expect((await events(id)).filter((e) => e.type === 'FilesPurged')).toHaveLength(1);
  });

  it("deletes a canceled review's source the retention after the cancellation; its open page then has no rows to show", async () => {
    const { id, review } = await reviewReady();
    expect((await review.cancel()).status).toBe(200);
    const purged = await purgedEvent(id);
    expect(purged.data).toMatchObject({ keys: [`runs/${id}/source`, `runs/${id}/source.row-index`], reason: 'review_canceled' });
    expect(await stored(`runs/${id}/source`)).toBe(false);
    // The review window (4 s) is still open: the page shows the canceled review, without rows.
    expect((await review.state()).body.phase).toBe('canceled');
    const preview = await review.preview();
    expect(preview.status).toBe(410);
    expect(preview.body.error.code).toBe('files_deleted');
  });

  it('a review page that reads a source deleted before the run says so (the projection behind the purge) answers 410, not a 503 to retry', async () => {
    const { id, review } = await reviewReady();
    // As the sweeper does first, before its FilesPurged is recorded and projected.
    await svc.app.get<BlobStore>(BLOB_STORE).delete(`runs/${id}/source`);
    const preview = await review.preview();
    expect(preview.status).toBe(410);
    expect(preview.body.error.code).toBe('files_deleted');
  });

  it('a review whose schema asks for unique values answers 410 too when its duplicates pass finds the source deleted', async () => {
    const unique = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/schemas`, {
      token: ADMIN_TOKEN,
      body: { name: 'Unique people', fields: { ...PEOPLE_FIELDS, email: { ...PEOPLE_FIELDS.email, unique: true } } },
    });
    expect(unique.status).toBe(201);
    const { id, review } = await reviewReady(unique.body.data.id);
    await svc.app.get<BlobStore>(BLOB_STORE).delete(`runs/${id}/source`);
    for (const answer of [await review.preview(), await review.problemRows({})]) {
      expect(answer.status).toBe(410);
      expect(answer.body.error.code).toBe('files_deleted');
    }
  });

  it("deletes an expired review's source the retention after its deadline", async () => {
    const { id } = await reviewReady();
    const purged = await purgedEvent(id, 15_000);
    expect(purged.data).toMatchObject({ keys: [`runs/${id}/source`, `runs/${id}/source.row-index`], reason: 'review_expired' });
    const expired = await call(`${svc.baseUrl}/v1/transformations/${id}`, { token: org.apiKey });
    expect(Date.parse(purged.recorded_at)).toBeGreaterThanOrEqual(Date.parse(expired.body.review_expires_at) + 2000);
    expect(expired.body.review_state).toBe('expired');
  }, 30_000);
});
