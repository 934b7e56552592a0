import { BlobNotFoundError, type BlobStore, type JoinedPiece } from './blob-store.port';

/** A piece of a join once checked: a text, or a blob's key with its start and whether the caller gave it up. */
export type CheckedPiece = string | { key: string; start: number; take: boolean };

/**
 * The pieces of a join, checked before anything is written: BlobNotFoundError for a missing
 * blob, RangeError for a start that is not a byte offset of its blob (0 to its size). A blob
 * piece with nothing after its start is left out, so every store writes the same bytes for it.
 */
export async function checkedPieces(blobs: Pick<BlobStore, 'stat'>, pieces: JoinedPiece[]): Promise<CheckedPiece[]> {
  const checked: CheckedPiece[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      checked.push(piece);
      continue;
    }
    const found = await blobs.stat(piece.key);
    if (!found) throw new BlobNotFoundError(piece.key);
    const start = piece.start ?? 0;
    if (!Number.isInteger(start) || start < 0 || start > found.size)
      throw new RangeError(`Start ${start} is not within ${piece.key} (${found.size} bytes)`);
    if (start < found.size) checked.push({ key: piece.key, start, take: piece.take === true });
  }
  return checked;
}

/** The bytes of checked pieces in order, streamed from the store: for a store that can only take a stream. */
export async function* bytesOfPieces(blobs: Pick<BlobStore, 'openRead'>, pieces: JoinedPiece[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) {
    if (typeof piece === 'string') yield Buffer.from(piece);
    else for await (const chunk of await blobs.openRead(piece.key, { start: piece.start ?? 0 })) yield chunk as Buffer;
  }
}
