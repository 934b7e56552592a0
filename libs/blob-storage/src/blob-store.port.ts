import type { Readable } from 'node:stream';

export type PresignMethod = 'PUT' | 'GET';

export interface PresignedRequest {
  url: string;
  method: PresignMethod;
  headers: Record<string, string>;
}

const NOT_FOUND_PREFIX = 'No blob at ';
const TOO_LARGE_MESSAGE = /^The body is larger than (\d+) bytes$/;

/**
 * `err` as the error of class `kind` its message says it was, stack kept; anything else as it is.
 * Not `instanceof Error`: a deserialized error may be of another realm's Error (Jest's sandbox).
 */
function revivedByMessage<E extends Error>(
  err: unknown,
  kind: new (...args: never[]) => E,
  fromMessage: (message: string) => E | null,
): unknown {
  const { name, message, stack } = (err ?? {}) as Partial<Error>;
  if (err instanceof kind || name !== 'Error' || typeof message !== 'string') return err;
  const revived = fromMessage(message);
  if (!revived) return err;
  revived.stack = stack;
  return revived;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`${NOT_FOUND_PREFIX}${key}`);
    this.name = 'BlobNotFoundError';
  }

  /**
   * An error thrown on another thread arrives as a plain Error that keeps only its message
   * (structured clone drops a class of our own): this one is known again by its message, so a
   * file deleted under a file-work thread's read is still told apart from a failed read.
   */
  static revived(err: unknown): unknown {
    return revivedByMessage(err, BlobNotFoundError, (message) =>
      message.startsWith(NOT_FOUND_PREFIX) ? new BlobNotFoundError(message.slice(NOT_FOUND_PREFIX.length)) : null,
    );
  }
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }

  /** As BlobNotFoundError.revived: a refusal on a file-work thread (an output past its limit) known again by its message. */
  static revived(err: unknown): unknown {
    return revivedByMessage(err, BlobTooLargeError, (message) => {
      const limit = TOO_LARGE_MESSAGE.exec(message);
      return limit ? new BlobTooLargeError(Number(limit[1])) : null;
    });
  }
}

/** An error from another thread as the store's own error it was, when it was one the callers tell apart (not found, too large). */
export const revivedBlobError = (err: unknown): unknown => BlobTooLargeError.revived(BlobNotFoundError.revived(err));

export class BlobExistsError extends Error {
  constructor(readonly key: string) {
    super(`A blob already exists at ${key}`);
    this.name = 'BlobExistsError';
  }
}

export interface PutOptions {
  /** Refuse (BlobTooLargeError) and keep nothing once the body passes this many bytes. */
  maxBytes?: number;
  /** Refuse (BlobExistsError) when the key already holds a blob. */
  ifNoneMatch?: boolean;
  contentType?: string;
  /**
   * The blob is its writer's working space: deleted soon, and written again if it is lost (an
   * output's parts before their join). A store need not make it durable before answering: the
   * local store does not fsync it. Readers still see it whole or not at all, but after a crash
   * of the machine it may be there without its bytes, so only its writer may read it.
   */
  scratch?: boolean;
}

export interface ReadOptions {
  /** The first byte to read (0-based). */
  start?: number;
  /** The byte to stop before (0-based, not read); the blob's end when absent. Only what is asked for is fetched. */
  end?: number;
}

/**
 * A piece of a joined blob: a text (written as UTF-8), or a blob's bytes from byte `start` (0 when
 * absent) to its end. `take`: the caller gives the blob up (it deletes it after the join, whether the
 * join was written or not), so a store may move its bytes into the joined blob rather than copy them:
 * only the first piece's, when it is a blob read from its start and not read again by a later piece.
 * The local store does so (the blob is then gone); S3 copies it.
 */
export type JoinedPiece = string | { key: string; start?: number; take?: boolean };

/**
 * Blob storage port. A put is atomic: readers see the whole object or none of it, never
 * a partial one, which is what keeps a half-written output from ever being downloadable.
 */
export interface BlobStore {
  put(key: string, body: Readable, options?: PutOptions): Promise<{ size: number }>;
  /**
   * Writes at `key` the pieces one after the other, atomically as `put` does; nothing is kept
   * when a piece's blob is missing (BlobNotFoundError) or its start is past its end (RangeError).
   * Parts that threads wrote at once become one output this way; local files are copied through
   * two reused buffers, not streamed as chunks, so the copy makes no garbage (a 200 MB join
   * streamed raised the RSS by 38 MB).
   */
  putJoined(key: string, pieces: JoinedPiece[], options?: PutOptions): Promise<{ size: number }>;
  /** The blob's bytes, from byte `start` (0 when absent) to its end: a row index lets readers begin mid-file. */
  openRead(key: string, options?: ReadOptions): Promise<Readable>;
  stat(key: string): Promise<{ size: number } | null>;
  delete(key: string): Promise<void>;
  /** A URL that allows one method on one key until `expiresAt`, with the headers to send. */
  presign(
    key: string,
    method: PresignMethod,
    options: { expiresAt: Date; contentType?: string; downloadName?: string },
  ): Promise<PresignedRequest>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');
