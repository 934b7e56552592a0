import { BlobNotFoundError, type BlobStore, type JoinedPiece } from './blob-store.port';

/** Fails with BlobNotFoundError before anything is written when a piece's blob is missing. */
export async function assertPiecesExist(blobs: Pick<BlobStore, 'stat'>, pieces: JoinedPiece[]): Promise<void> {
  for (const piece of pieces) if (typeof piece !== 'string' && !(await blobs.stat(piece.key))) throw new BlobNotFoundError(piece.key);
}

/** The bytes of the pieces in order, streamed from the store: for a store that can only take a stream. */
export async function* bytesOfPieces(blobs: Pick<BlobStore, 'openRead'>, pieces: JoinedPiece[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) {
    if (typeof piece === 'string') yield Buffer.from(piece);
    else for await (const chunk of await blobs.openRead(piece.key, { start: piece.start ?? 0 })) yield chunk as Buffer;
  }
}
