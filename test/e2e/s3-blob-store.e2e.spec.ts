import { BLOB_KEYS, createdObjectKeys } from '@app/blob-storage';
import { S3BlobStore, createS3Client } from '@app/blob-storage/s3/s3-blob-store';
import { BucketUploadWatcher } from '../../apps/ingestion/src/bucket-upload.watcher';
import { S3RVER_CREDENTIALS, startS3rver } from '../support/s3rver';
import { call, httpFetch, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * The whole run with blobs in S3 (s3rver on loopback, its own process): the client
 * uploads straight to the bucket with the pre-signed PUT, the service finds the upload
 * by itself, and the output is downloaded from the bucket with a pre-signed GET.
 */
describe('runs with the S3 blob store', () => {
  const BUCKET = 'runs-bucket';
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    s3 = await startS3rver(BUCKET);
    svc = await startService({
      BLOB_STORE: 's3',
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      UPLOAD_POLL_MS: '50',
      MAX_UPLOAD_BYTES: '2000',
    });
    org = await setupOrganization(svc);
  });
  afterAll(async () => {
    await svc?.stop();
    await s3?.stop();
  });

  const create = (filename: string) =>
    call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, body: { schema_id: org.schemaId, filename } });

  it('uploads to the bucket, notices the upload, reviews, and serves the output from the bucket', async () => {
    const created = await create('people.csv');
    expect(created.status).toBe(201);
    expect(created.body.upload.url.startsWith(`${s3.endpoint}/${BUCKET}/`)).toBe(true);
    expect((await upload(created.body, 'E-mail,First name,Age\nada@example.com,Ada,36\nbob@example.com,Bob,41\n')).status).toBe(200);

    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready).toMatchObject({ total_rows: 2, status: 'completed' });
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.stage === 'final' && r.status === 'completed');
    expect(done.download_url.startsWith(`${s3.endpoint}/${BUCKET}/`)).toBe(true);
    const output = await (await httpFetch(done.download_url)).json(); // the test schema upper-cases first names
    expect(output).toEqual([
      { email: 'ada@example.com', first_name: 'ADA', age: 36, born: null },
      { email: 'bob@example.com', first_name: 'BOB', age: 41, born: null },
    ]);
  });

  it('deletes an upload over MAX_UPLOAD_BYTES (a pre-signed PUT cannot cap it) and fails the run', async () => {
    const created = await create('big.csv');
    await upload(created.body, `E-mail\n${'x@example.com\n'.repeat(200)}`);
    const failed = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.status === 'failed');
    expect(failed.error).toMatchObject({ code: 'source_file_too_large', stage: 'ingestion', retryable: false });
    const store = new S3BlobStore(
      createS3Client({ bucket: BUCKET, region: 'us-east-1', endpoint: s3.endpoint, ...S3RVER_CREDENTIALS }),
      BUCKET,
    );
    expect(await store.stat(BLOB_KEYS.source(created.body.id))).toBeNull();
  });

  it('a run nobody uploads to stays waiting', async () => {
    const created = await create('never.csv');
    await new Promise((r) => setTimeout(r, 300));
    expect((await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey })).body.status).toBe('awaiting_upload');
  });
});

describe('bucket notifications', () => {
  const BUCKET = 'notified-bucket';
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let svc: Service;

  beforeAll(async () => {
    s3 = await startS3rver(BUCKET);
    // The periodic look is an hour away: only the notification can find this upload.
    svc = await startService({
      BLOB_STORE: 's3',
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      UPLOAD_POLL_MS: '3600000',
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await s3?.stop();
  });

  it('an object-created notification (MinIO shape) for a run source records the upload at once', async () => {
    const org = await setupOrganization(svc);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv' },
    });
    expect((await upload(created.body, 'E-mail\nada@example.com\n')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await call(`${svc.baseUrl}/v1/transformations/${created.body.id}`, { token: org.apiKey })).body.status).toBe('awaiting_upload');

    const key = encodeURIComponent(BLOB_KEYS.source(created.body.id));
    const notification = JSON.stringify({
      EventName: 's3:ObjectCreated:Put',
      Key: `${BUCKET}/${key}`,
      Records: [{ eventName: 's3:ObjectCreated:Put', s3: { bucket: { name: BUCKET }, object: { key, size: 24 } } }],
    });
    const watcher = svc.app.get(BucketUploadWatcher, { strict: false });
    for (const k of createdObjectKeys(notification)) await watcher.onObjectCreated(k);
    await watcher.onObjectCreated(createdObjectKeys(notification)[0]); // a redelivered notification changes nothing

    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active', 10_000);
    expect(ready.total_rows).toBe(1);
  });
});
