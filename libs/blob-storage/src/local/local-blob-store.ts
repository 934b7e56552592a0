import { createReadStream } from 'node:fs';
import { link, mkdir, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidBlobKey } from '../blob-key';
import {
  BlobExistsError,
  BlobNotFoundError,
  type BlobStore,
  type JoinedPiece,
  type PresignedRequest,
  type PresignMethod,
  type PutOptions,
  type ReadOptions,
} from '../blob-store.port';
import { ByteLimit } from '../byte-limit';
import { checkedPieces } from '../joined-pieces';
import type { UrlSigner } from '../url-signer';
import { TemporaryFile } from './temporary-file';

/** Blobs' directories are the service's user's only, as their files are (docs/security.md). */
const DIR_MODE = 0o700;

/** A temporary file no write has touched for this long was left by a process that died mid-write. */
const ABANDONED_TEMPORARY_MS = 24 * 60 * 60 * 1000;

/**
 * The bytes a stream of a stored file reads at a time. Node's file stream allocates a new buffer
 * for every read, and the service runs with MALLOC_MMAP_THRESHOLD_=65536 (docs/files.md, "Memory"):
 * a buffer of 64 KiB or more gets fresh pages of its own, each faulted in as the read fills it and
 * given back when it is freed. Pieces just under the threshold come from malloc's arena and reuse
 * the memory of the pieces before them, freed at the reader's next young collection. Read in 1 MiB
 * pieces, the csv case's file cost 40-50 thousand page faults more a run, at some 14-20 µs each on
 * this kind of host (docs/decisions.md, "A stored file is read in pieces under 64 KiB").
 */
export const READ_PIECE_BYTES = 60 * 1024;

/** The buffer a join copies through. */
const COPY_CHUNK_BYTES = 1024 * 1024;

/** A stream's bytes into a temporary file, each chunk written whole before the next is taken; `written` hears each once it is in the file. */
const fileSink = (file: TemporaryFile, written?: (chunk: Buffer) => void): Writable =>
  new Writable({
    write: (chunk: Buffer, _encoding, done) =>
      void file
        .write(chunk)
        .then(() => written?.(chunk))
        .then(() => done(), done),
  });

/** Copies `source` from byte `start` to its end into `out`, reading the next buffer while the last is written. */
async function copyFrom(source: FileHandle, start: number, out: TemporaryFile, buffers: [Buffer, Buffer], limit: ByteLimit): Promise<void> {
  let [current, next] = buffers;
  let position = start;
  let reading = source.read(current, 0, current.length, position);
  try {
    for (;;) {
      const { bytesRead } = await reading;
      if (bytesRead === 0) return;
      position += bytesRead;
      limit.add(bytesRead);
      reading = source.read(next, 0, next.length, position);
      await out.write(current, bytesRead);
      [current, next] = [next, current];
    }
  } finally {
    // A write that failed leaves a read under way: it settles before its buffer is used again, its error unheard.
    await reading.catch(() => undefined);
  }
}

/** A rename or a new name is durable once its directory is. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** What the local store's `put` also takes. */
export interface LocalPutOptions extends PutOptions {
  /**
   * Hears each chunk of the body, in order, once it is in the file and before `put` resolves: the
   * store holds it no more, so the caller may give its memory away (the upload route moves it to
   * the thread that scans the upload instead of copying it). A callback that throws fails the put.
   */
  onChunkWritten?: (chunk: Buffer) => void;
}

/** The path under which the gateway serves local blobs through signed URLs. */
export const LOCAL_BLOB_ROUTE = '/files';

/**
 * Blobs as files in a directory. Writes go to a temporary file, are fsynced (scratch ones are
 * not) and then renamed (or hard-linked, for if-none-match) into place, so a blob appears whole or
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

  async put(key: string, body: Readable, options: LocalPutOptions = {}): Promise<{ size: number }> {
    return this.writeAtomically(key, options, async (tmp) => {
      const limit = new ByteLimit(options.maxBytes);
      const file = await TemporaryFile.open(tmp, 'w', !options.scratch).catch((err: Error) => {
        body.destroy(); // as pipeline would: a body nobody reads must not hold its source open
        throw err;
      });
      try {
        await pipeline(body, limit, fileSink(file, options.onChunkWritten));
      } catch (err) {
        await file.discard().catch(() => undefined); // the write's error is the one to report
        throw err;
      }
      await file.close();
      return limit.bytesSeen;
    });
  }

  async putJoined(key: string, pieces: JoinedPiece[], options: PutOptions = {}): Promise<{ size: number }> {
    const checked = await checkedPieces(this, pieces);
    // A first blob given up and read from its start becomes the joined file: the rest is appended to it,
    // so its bytes are neither read nor written again (half of an output written by two threads).
    const head = checked[0];
    const movable = typeof head === 'object' && head.take && head.start === 0;
    const moved = movable && !checked.slice(1).some((p) => typeof p === 'object' && p.key === head.key) ? head : null;
    return this.writeAtomically(key, options, async (tmp) => {
      const limit = new ByteLimit(options.maxBytes);
      if (moved) {
        await rename(this.path(moved.key), tmp).catch((e: NodeJS.ErrnoException) => {
          throw e.code === 'ENOENT' ? new BlobNotFoundError(moved.key) : e;
        });
      }
      const out = await TemporaryFile.open(tmp, moved ? 'a' : 'w', !options.scratch);
      try {
        if (moved) limit.add((await out.handle.stat()).size);
        // Two buffers for every read and write: streamed chunks would each be a new buffer, freed only by a later collection.
        const buffers: [Buffer, Buffer] = [Buffer.allocUnsafe(COPY_CHUNK_BYTES), Buffer.allocUnsafe(COPY_CHUNK_BYTES)];
        for (const piece of moved ? checked.slice(1) : checked) {
          if (typeof piece === 'string') {
            const bytes = Buffer.from(piece);
            limit.add(bytes.length);
            await out.write(bytes);
            continue;
          }
          const source = await open(this.path(piece.key), 'r').catch((e: NodeJS.ErrnoException) => {
            throw e.code === 'ENOENT' ? new BlobNotFoundError(piece.key) : e;
          });
          try {
            await copyFrom(source, piece.start, out, buffers, limit);
          } finally {
            await source.close();
          }
        }
      } catch (err) {
        await out.discard().catch(() => undefined); // the join's error is the one to report
        throw err;
      }
      await out.close();
      return limit.bytesSeen;
    });
  }

  /**
   * Has `write` write a temporary file (durable unless scratch: TemporaryFile) and answer its size, then puts it in
   * place whole. A durable blob's directory is fsynced after the rename, and so is each directory made for it: until
   * then a power cut could lose the name while the bytes were safe.
   */
  private async writeAtomically(key: string, options: PutOptions, write: (tmp: string) => Promise<number>): Promise<{ size: number }> {
    const final = this.path(key);
    const tmpDir = join(this.root, 'tmp');
    await mkdir(tmpDir, { recursive: true, mode: DIR_MODE });
    const firstMade = await mkdir(dirname(final), { recursive: true, mode: DIR_MODE });
    const tmp = join(tmpDir, randomUUID());
    try {
      const size = await write(tmp);
      if (options.ifNoneMatch) {
        await link(tmp, final).catch((e: NodeJS.ErrnoException) => {
          throw e.code === 'EEXIST' ? new BlobExistsError(key) : e;
        });
        await unlink(tmp);
      } else {
        await rename(tmp, final);
      }
      if (!options.scratch) {
        // The blob's directory, then up to the one that holds the first directory mkdir made (if it made any).
        const top = firstMade === undefined ? dirname(final) : dirname(firstMade);
        for (let dir = dirname(final); ; dir = dirname(dir)) {
          await syncDirectory(dir);
          if (dir === top || dir.length <= this.root.length) break;
        }
      }
      return { size };
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Removes the temporary files no write has touched for `olderThanMs` (a day): a process killed
   * mid-write leaves its temporary file behind (a join's holds half an output or more), and
   * nothing else would ever remove it. A write under way touches its file every few milliseconds,
   * so another process's is not taken for abandoned. Answers how many were removed.
   */
  async removeAbandonedTemporaryFiles(olderThanMs = ABANDONED_TEMPORARY_MS, now = Date.now()): Promise<number> {
    const tmpDir = join(this.root, 'tmp');
    const names = await readdir(tmpDir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [];
      throw e;
    });
    let removed = 0;
    for (const name of names) {
      const modified = await stat(join(tmpDir, name)).then(
        (s) => s.mtimeMs,
        () => null,
      );
      if (modified === null || now - modified < olderThanMs) continue;
      await rm(join(tmpDir, name), { force: true });
      removed++;
    }
    return removed;
  }

  async openRead(key: string, options: ReadOptions = {}): Promise<Readable> {
    const p = this.path(key);
    if (!(await this.stat(key))) throw new BlobNotFoundError(key);
    const start = options.start ?? 0;
    if (options.end !== undefined && options.end <= start) return Readable.from([]);
    // createReadStream's `end` is the last byte read (inclusive).
    const stream = createReadStream(p, {
      highWaterMark: READ_PIECE_BYTES,
      start,
      end: options.end === undefined ? undefined : options.end - 1,
    });
    // The file is open before the stream is handed over: one deleted since the stat (the run deleted) is this call's
    // BlobNotFoundError. Opened later by the stream, its ENOENT came to a reader that may have let the stream go unread
    // already (the XLSX reader destroys it to open the file by its path), with no listener: an error that ended the process.
    await once(stream, 'ready').catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'ENOENT' ? new BlobNotFoundError(key) : e;
    });
    return stream;
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
