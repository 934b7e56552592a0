import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { assertValidBlobKey } from '../blob-key';
import {
  BlobExistsError,
  BlobNotFoundError,
  BlobTooLargeError,
  type BlobStore,
  type JoinedPiece,
  type PresignMethod,
  type PresignedRequest,
  type PutOptions,
  type ReadOptions,
} from '../blob-store.port';
import { ByteLimit } from '../byte-limit';
import { bytesOfPieces, checkedPieces } from '../joined-pieces';

export interface S3Settings {
  bucket: string;
  region: string;
  /** MinIO, s3rver or any S3-compatible server; unset for AWS. */
  endpoint?: string;
  /**
   * The endpoint clients reach, when it differs from ours (the service talks to
   * http://minio:9000 inside the cluster; clients upload to https://files.example.com).
   * Pre-signed URLs are signed for it, since the host is part of the signature.
   */
  publicEndpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/**
 * An S3 client for any S3-compatible server: path-style addressing (MinIO, s3rver), and
 * checksums only when an operation requires them, or pre-signed URLs carry checksum
 * parameters the uploading client cannot satisfy and streamed bodies get stored with
 * their aws-chunked framing. Credentials come from the settings or the default AWS chain.
 */
export function createS3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: s.accessKeyId && s.secretAccessKey ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } : undefined,
  });
}

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404);
const isPreconditionFailed = (err: unknown) =>
  err instanceof S3ServiceException && (err.name === 'PreconditionFailed' || err.$metadata?.httpStatusCode === 412);

/**
 * Blob storage on S3. Objects become visible only when a PutObject or a multipart
 * upload completes, so readers never see a partial blob; a failed body aborts the
 * multipart upload (lib-storage) and leaves nothing behind.
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    /** Signs the URLs handed to clients (see S3Settings.publicEndpoint); defaults to `client`. */
    private readonly presignClient: S3Client = client,
  ) {}

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<{ size: number }> {
    assertValidBlobKey(key);
    // Servers that honour If-None-Match on writes (AWS, MinIO) close the race; the
    // check first gives the same answer on servers that ignore it (s3rver).
    if (options.ifNoneMatch && (await this.stat(key))) throw new BlobExistsError(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    body.once('error', (err) => limit.destroy(err));
    body.pipe(limit);
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: limit,
        ContentType: options.contentType,
        ...(options.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
      },
      queueSize: 2, // parts in flight: bounds memory to a few 5 MiB parts
    });
    try {
      await upload.done();
    } catch (err) {
      if (limit.exceeded) throw new BlobTooLargeError(options.maxBytes!);
      if (isPreconditionFailed(err)) throw new BlobExistsError(key);
      throw err;
    } finally {
      body.unpipe(limit);
    }
    return { size: limit.bytesSeen };
  }

  /** Streamed through the process (a server-side copy needs parts of 5 MiB and more, and texts are no parts). */
  async putJoined(key: string, pieces: JoinedPiece[], options: PutOptions = {}): Promise<{ size: number }> {
    const body = Readable.from(bytesOfPieces(this, await checkedPieces(this, pieces)));
    try {
      return await this.put(key, body, options);
    } finally {
      // put leaves the body to its owner: a failed upload must not keep a download open.
      body.destroy();
    }
  }

  async openRead(key: string, options: ReadOptions = {}): Promise<Readable> {
    assertValidBlobKey(key);
    try {
      // A range (RFC 9110 `bytes=N-` or `bytes=N-M`, M inclusive); none for a whole read.
      const start = options.start ?? 0;
      if (options.end !== undefined && options.end <= start) return Readable.from([]);
      const last = options.end === undefined ? '' : String(options.end - 1);
      const range = start > 0 || last !== '' ? `bytes=${start}-${last}` : undefined;
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }));
      return res.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    assertValidBlobKey(key);
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async presign(
    key: string,
    method: PresignMethod,
    options: { expiresAt: Date; contentType?: string; downloadName?: string },
  ): Promise<PresignedRequest> {
    assertValidBlobKey(key);
    // S3 counts a URL's life in whole seconds from X-Amz-Date, which drops the milliseconds. Signed at a whole
    // second, the URL ends at the last whole second not after expiresAt, as the local store's URLs do; one
    // asked for at or after that second is signed a second before it (X-Amz-Expires is at least 1), so it is
    // already expired, never alive past expiresAt.
    const endsAt = Math.floor(options.expiresAt.getTime() / 1000);
    const signedAt = Math.min(Math.floor(Date.now() / 1000), endsAt - 1);
    const signingDate = new Date(signedAt * 1000);
    const expiresIn = endsAt - signedAt;
    if (method === 'PUT') {
      const contentType = options.contentType ?? 'application/octet-stream';
      const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType });
      // Content-Type is signed: the uploader must send exactly the header handed out with the URL.
      const url = await getSignedUrl(this.presignClient, command, { expiresIn, signingDate, signableHeaders: new Set(['content-type']) });
      return { url, method, headers: { 'Content-Type': contentType } };
    }
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: options.downloadName
        ? `attachment; filename="${options.downloadName.replace(/["\\\r\n]/g, '_')}"`
        : undefined,
    });
    return { url: await getSignedUrl(this.presignClient, command, { expiresIn, signingDate }), method, headers: {} };
  }
}
