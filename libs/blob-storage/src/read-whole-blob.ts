import type { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobStore } from './blob-store.port';

/** A small blob's whole bytes (a row index, a stored answer), or null when there is none. */
export async function readWholeBlob(blobs: BlobStore, key: string): Promise<Buffer | null> {
  let stream: Readable;
  try {
    stream = await blobs.openRead(key);
  } catch (err) {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
