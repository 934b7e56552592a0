import { Transform } from 'node:stream';
import { BlobTooLargeError } from './blob-store.port';

/**
 * Counts a body's bytes and refuses it (BlobTooLargeError) once they pass `max`: as a stream a
 * body passes through, or by `add` for bytes written another way (a join's copies).
 */
export class ByteLimit extends Transform {
  // Not named `size`: lib-storage takes a body's `size` property as its total length.
  bytesSeen = 0;
  exceeded = false;
  constructor(private readonly max = Number.POSITIVE_INFINITY) {
    super();
  }

  add(bytes: number): void {
    this.bytesSeen += bytes;
    if (this.bytesSeen > this.max) {
      this.exceeded = true;
      throw new BlobTooLargeError(this.max);
    }
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    try {
      this.add(chunk.length);
    } catch (err) {
      return done(err as Error);
    }
    done(null, chunk);
  }
}
