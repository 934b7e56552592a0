import { startS3rver, S3RVER_CREDENTIALS } from '../../../../test/support/s3rver';
import { blobStoreContract, readAll } from '../testing/blob-store.contract';
import { S3BlobStore, createS3Client } from './s3-blob-store';
import { Readable } from 'node:stream';

/** The S3 adapter for real, against s3rver on loopback (in its own process). */
const BUCKET = 'contract-bucket';
let server: Awaited<ReturnType<typeof startS3rver>>;
const settings = () => ({ bucket: BUCKET, region: 'us-east-1', endpoint: server.endpoint, ...S3RVER_CREDENTIALS });

beforeAll(async () => {
  server = await startS3rver(BUCKET);
});
afterAll(async () => {
  await server?.stop();
});

blobStoreContract('S3 (s3rver)', async () => new S3BlobStore(createS3Client(settings()), BUCKET));

describe('S3 specifics', () => {
  const store = () => new S3BlobStore(createS3Client(settings()), BUCKET);

  it('stores a body larger than one multipart part in parts, byte for byte', async () => {
    const body = Buffer.alloc(12 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32LE(i, i);
    const chunks = Array.from({ length: 12 }, (_, i) => body.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024));
    expect(await store().put('runs/big/source', Readable.from(chunks))).toEqual({ size: body.length });
    expect((await readAll(await store().openRead('runs/big/source'))).equals(body)).toBe(true);
  }, 60_000);

  it('a multipart body over maxBytes leaves nothing', async () => {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(1024 * 1024, 7));
    await expect(store().put('runs/over/source', Readable.from(chunks), { maxBytes: 7 * 1024 * 1024 })).rejects.toMatchObject({
      name: 'BlobTooLargeError',
    });
    expect(await store().stat('runs/over/source')).toBeNull();
  }, 60_000);

  it('pre-signed PUT and GET work with a plain HTTP client, with signed content type and expiry, without checksum parameters', async () => {
    const s = store();
    const expiresAt = new Date(Date.now() + 60_000);
    const put = await s.presign('runs/p/source', 'PUT', { expiresAt, contentType: 'text/csv' });
    expect(put.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
    const up = await fetch(put.url, { method: 'PUT', headers: put.headers, body: 'a,b\n1,2\n' });
    expect(up.status).toBe(200);
    const get = await s.presign('runs/p/source', 'GET', { expiresAt, downloadName: 'out.csv' });
    const down = await fetch(get.url);
    expect(down.status).toBe(200);
    expect(await down.text()).toBe('a,b\n1,2\n');
    expect(down.headers.get('content-disposition')).toBe('attachment; filename="out.csv"');
    // s3rver 3.7 does not verify query-string signatures, so what the signature covers is
    // asserted on the URL: the method and key are in every SigV4 canonical request, and the
    // upload's Content-Type is a signed header the uploader must send as handed out.
    expect(new URL(put.url).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['content-type', 'host']));
    expect(Number(new URL(get.url).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(60);
  });

  /** When a pre-signed URL stops working: X-Amz-Date (whole seconds, UTC, as 20261126T203000Z) plus X-Amz-Expires. */
  const endOf = (url: string): number => {
    const q = new URL(url).searchParams;
    const signedAt = Date.parse(q.get('X-Amz-Date')!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    return signedAt + Number(q.get('X-Amz-Expires')) * 1000;
  };

  it.each([[0], [999]])('a pre-signed URL ends at the last whole second not after expiresAt (%j ms past a second)', async (ms) => {
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + 120) * 1000 + ms);
    const url = (await store().presign('runs/p/source', 'PUT', { expiresAt, contentType: 'text/csv' })).url;
    expect(endOf(url)).toBe(Math.floor(expiresAt.getTime() / 1000) * 1000);
  });

  it('signs at the whole second, and a URL asked for when its expiry is (all but) past is already expired', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-01-01T00:00:00.700Z'));
    try {
      const url = (await store().presign('runs/p/source', 'GET', { expiresAt: new Date('2026-01-01T00:01:00.000Z') })).url;
      expect(new URL(url).searchParams.get('X-Amz-Date')).toBe('20260101T000000Z');
      expect(endOf(url)).toBe(Date.parse('2026-01-01T00:01:00.000Z'));
      for (const expiresAt of ['2026-01-01T00:00:00.900Z', '2025-12-31T23:00:00.000Z'])
        expect(endOf((await store().presign('runs/p/source', 'GET', { expiresAt: new Date(expiresAt) })).url)).toBeLessThanOrEqual(
          Date.parse(expiresAt),
        );
    } finally {
      now.mockRestore();
    }
  });

  it('signs URLs for the public endpoint when clients reach the bucket at another address', async () => {
    // 'localhost' instead of '127.0.0.1': the same s3rver, another host name, as a cluster-internal vs public address.
    const publicEndpoint = server.endpoint.replace('127.0.0.1', 'localhost');
    const s = new S3BlobStore(createS3Client(settings()), BUCKET, createS3Client({ ...settings(), endpoint: publicEndpoint }));
    const put = await s.presign('runs/pub/source', 'PUT', { expiresAt: new Date(Date.now() + 60_000), contentType: 'text/csv' });
    expect(put.url.startsWith(`${publicEndpoint}/${BUCKET}/runs/pub/source?`)).toBe(true);
    await s.put('runs/pub/other', Readable.from([Buffer.from('x')]));
    expect(await s.stat('runs/pub/other')).toEqual({ size: 1 });
  });
});
