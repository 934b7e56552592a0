import { Readable } from 'node:stream';
import {
  BlobExistsError,
  BlobNotFoundError,
  BlobTooLargeError,
  type BlobStore,
  type JoinedPiece,
  type PresignedRequest,
  type PutOptions,
  type ReadOptions,
} from '../blob-store.port';
import { checkedPieces } from '../joined-pieces';

/**
 * Blobs held in the process's memory, for a small working set that is no run's and must leave
 * nothing behind: the console's "try a file" reads its file through the same code a run's file
 * goes through, which stores what it learns (a row index) beside the source. Everything the
 * port promises holds (the contract suite runs against it) except URLs: nothing outside the
 * process can reach these blobs, so `presign` refuses.
 */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<{ size: number }> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      const piece = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      size += piece.length;
      if (options.maxBytes !== undefined && size > options.maxBytes) {
        body.destroy();
        throw new BlobTooLargeError(options.maxBytes);
      }
      chunks.push(piece);
    }
    return this.keep(key, Buffer.concat(chunks, size), options);
  }

  async putJoined(key: string, pieces: JoinedPiece[], options: PutOptions = {}): Promise<{ size: number }> {
    // The same checks as every store's (missing blobs, starts that are no byte offset of their blob).
    const parts = (await checkedPieces(this, pieces)).map((piece) =>
      typeof piece === 'string' ? Buffer.from(piece, 'utf8') : this.blobs.get(piece.key)!.subarray(piece.start),
    );
    const size = parts.reduce((sum, part) => sum + part.length, 0);
    if (options.maxBytes !== undefined && size > options.maxBytes) throw new BlobTooLargeError(options.maxBytes);
    return this.keep(key, Buffer.concat(parts, size), options);
  }

  async openRead(key: string, options: ReadOptions = {}): Promise<Readable> {
    const blob = this.blobs.get(key);
    if (!blob) throw new BlobNotFoundError(key);
    return Readable.from([blob.subarray(options.start ?? 0, options.end ?? blob.length)]);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    const blob = this.blobs.get(key);
    return blob ? { size: blob.length } : null;
  }

  async delete(key: string): Promise<void> {
    this.blobs.delete(key);
  }

  presign(key: string): Promise<PresignedRequest> {
    return Promise.reject(new Error(`Blobs held in memory have no URL (${key})`));
  }

  /** The whole blob, or nothing, becomes visible at once (a put is atomic), unless one exists and `ifNoneMatch` says keep it. */
  private keep(key: string, bytes: Buffer, options: PutOptions): { size: number } {
    if (options.ifNoneMatch && this.blobs.has(key)) throw new BlobExistsError(key);
    this.blobs.set(key, bytes);
    return { size: bytes.length };
  }
}
