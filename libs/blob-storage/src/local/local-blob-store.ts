import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidBlobKey } from '../blob-key';
import {
  BlobExistsError,
  BlobNotFoundError,
  BlobTooLargeError,
  type BlobStore,
  type PresignedRequest,
  type PresignMethod,
  type PutOptions,
  type ReadOptions,
} from '../blob-store.port';
import type { UrlSigner } from '../url-signer';

/** Blobs, their directories and temporary files are readable by the service's user only (docs/security.md). */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** The path under which the gateway serves local blobs through signed URLs. */
export const LOCAL_BLOB_ROUTE = '/files';

/**
 * Blobs as files in a directory. Writes go to a temporary file, are fsynced and then
 * renamed (or hard-linked, for if-none-match) into place, so a blob appears whole or
 * not at all. Pre-signed URLs point at the gateway's LOCAL_BLOB_ROUTE. Directories are
 * created 0700 and files 0600 (the rename keeps the temporary file's mode).
 */
export class LocalBlobStore implements BlobStore {
  constructor(
    private readonly root: string,
    private readonly signer: UrlSigner,
    private readonly publicBaseUrl: string,
  ) {}

  private path(key: string): string {
    assertValidBlobKey(key);
    return join(this.root, 'objects', key);
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<{ size: number }> {
    const final = this.path(key);
    const tmpDir = join(this.root, 'tmp');
    await mkdir(tmpDir, { recursive: true, mode: DIR_MODE });
    await mkdir(dirname(final), { recursive: true, mode: DIR_MODE });
    const tmp = join(tmpDir, randomUUID());
    let size = 0;
    const limit = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > limit) done(new BlobTooLargeError(limit));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(tmp, { mode: FILE_MODE }));
      const fh = await open(tmp, 'r');
      await fh.sync();
      await fh.close();
      if (options.ifNoneMatch) {
        await link(tmp, final).catch((e: NodeJS.ErrnoException) => {
          throw e.code === 'EEXIST' ? new BlobExistsError(key) : e;
        });
        await unlink(tmp);
      } else {
        await rename(tmp, final);
      }
      return { size };
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async openRead(key: string, options: ReadOptions = {}): Promise<Readable> {
    const p = this.path(key);
    if (!(await this.stat(key))) throw new BlobNotFoundError(key);
    return createReadStream(p, { highWaterMark: 1024 * 1024, start: options.start ?? 0 });
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const s = await stat(this.path(key));
      return { size: s.size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async presign(
    key: string,
    method: PresignMethod,
    options: { expiresAt: Date; contentType?: string; downloadName?: string },
  ): Promise<PresignedRequest> {
    assertValidBlobKey(key);
    const expires = Math.floor(options.expiresAt.getTime() / 1000);
    const signature = this.signer.sign(method, key, expires);
    const url = new URL(this.publicBaseUrl);
    url.pathname = `${url.pathname.replace(/\/$/, '')}${LOCAL_BLOB_ROUTE}/${key}`;
    url.searchParams.set('method', method);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('signature', signature);
    const headers: Record<string, string> = {};
    if (method === 'PUT') headers['Content-Type'] = options.contentType ?? 'application/octet-stream';
    return { url: url.toString(), method, headers };
  }
}
