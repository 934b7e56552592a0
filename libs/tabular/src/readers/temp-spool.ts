import { createWriteStream, promises as fs } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Writes a stream to a private temporary file, for readers that need random access
 * (the ZIP central directory of an XLSX sits at its end). The file lives in the OS temp
 * directory (TMPDIR); the reader opens it and unlinks it at once (the open descriptor
 * keeps it readable), or calls `remove()`. A failed copy removes what it wrote.
 */
export async function spoolToTempFile(input: Readable): Promise<{ path: string; remove(): Promise<void> }> {
  const path = join(tmpdir(), `transform-spool-${randomUUID()}`);
  const remove = () => fs.rm(path, { force: true });
  try {
    await pipeline(input, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await remove();
    throw err;
  }
  return { path, remove };
}
