import { createReadStream, createWriteStream, promises as fs, type ReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Writes a stream to a private temporary file, for readers that need random access
 * (the ZIP central directory of an XLSX sits at its end). The file lives in the OS temp
 * directory (TMPDIR) and is removed by `remove()` or as soon as `reopen()` has opened it.
 */
export async function spoolToTempFile(input: Readable): Promise<{ path: string; reopen(): Promise<ReadStream>; remove(): Promise<void> }> {
  const path = join(tmpdir(), `transform-spool-${randomUUID()}`);
  const remove = () => fs.rm(path, { force: true });
  try {
    await pipeline(input, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await remove();
    throw err;
  }
  return {
    path,
    remove,
    /** Opens the file and unlinks it at once: the open descriptor keeps it readable, nothing is left behind. */
    async reopen() {
      const stream = createReadStream(path);
      await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
      await remove();
      return stream;
    },
  };
}
