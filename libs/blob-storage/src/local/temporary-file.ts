import { open, type FileHandle } from 'node:fs/promises';

/** Blobs, their directories and temporary files are readable by the service's user only (docs/security.md). */
export const FILE_MODE = 0o600;

/** Bytes written between two flushes behind a long write: about what the fsync at its end has left to wait for. */
export const FLUSH_BEHIND_BYTES = 8 * 1024 * 1024;

/**
 * A blob's temporary file while it is written. A durable one asks the disk for its bytes as
 * they come (an fdatasync every FLUSH_BEHIND_BYTES, one at a time, not awaited), so the fsync
 * that makes the blob durable at its end waits for the last few megabytes instead of the whole
 * file: for a 94 MB upload 3-6 ms instead of 156-220 ms on this machine's disk, the writing no
 * slower (bench/README.md, "Flushed as it is written"). Each flush holds one of libuv's pool
 * threads (four, shared by the process) for some tens of milliseconds, off the request's path.
 *
 * A flush that fails is reported by `close`, never swallowed: Linux reports a write-back error
 * to one fsync of a file description, so the last fsync might not see it again.
 */
export class TemporaryFile {
  private written = 0;
  private flushedAt = 0;
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;

  private constructor(
    readonly handle: FileHandle,
    private readonly durable: boolean,
  ) {}

  /** `flags`: 'w' for a new file, 'a' to extend one. `durable`: false for scratch blobs (no flush, no fsync). */
  static async open(path: string, flags: 'w' | 'a', durable: boolean): Promise<TemporaryFile> {
    return new TemporaryFile(await open(path, flags, FILE_MODE), durable);
  }

  /** Writes all of `buffer`'s first `length` bytes (a file write may take fewer than asked). */
  async write(buffer: Buffer, length = buffer.length): Promise<void> {
    for (let offset = 0; offset < length;) offset += (await this.handle.write(buffer, offset, length - offset)).bytesWritten;
    this.written += length;
    if (this.durable && this.flushing === null && this.written - this.flushedAt >= FLUSH_BEHIND_BYTES) {
      this.flushedAt = this.written;
      this.flushing = this.handle
        .datasync()
        .catch((err: Error) => void (this.failure ??= err))
        .finally(() => (this.flushing = null));
    }
  }

  /** Waits for the flush under way; fsyncs a durable file (throwing a failed flush's error first); closes it in any case. */
  async close(): Promise<void> {
    try {
      await this.flushing;
      if (this.failure !== null) throw this.failure;
      if (this.durable) await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  /** Closes without making anything durable (the file is about to be removed); waits for a flush under way first. */
  async discard(): Promise<void> {
    await this.flushing;
    await this.handle.close();
  }
}
