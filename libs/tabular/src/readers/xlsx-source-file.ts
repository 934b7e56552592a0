import { ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { peekBytes } from './byte-peek';
import { SNIFF_BYTES, checkContent } from './content-sniffing';
import { spoolToTempFile } from './temp-spool';
import { XlsxPackage } from './xlsx-package';
import type { StallWatch } from './xlsx-stall-watch';

/**
 * The path behind a plain file stream nothing has been read from yet (the local blob
 * store's): the package can be opened there directly instead of being copied.
 */
function untouchedFilePath(source: Readable): string | null {
  if (!(source instanceof ReadStream)) return null;
  const file = source as ReadStream & { start?: number; end?: number };
  if (typeof file.path !== 'string' || file.bytesRead !== 0) return null;
  if ((file.start ?? 0) !== 0 || (file.end ?? Infinity) !== Infinity) return null;
  return file.path;
}

/** The source with every chunk noted by the watchdog: spooling a stalled upload must fail too. */
function clocked(source: Readable, watch: StallWatch): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      watch.progress();
      yield chunk as Buffer;
    }
  }
  const input = Readable.from(chunks(), { objectMode: false });
  input.once('close', () => source.destroy());
  return input;
}

/**
 * Awaits `work` under the watchdog; when it fails or stalls, `abort` destroys its streams
 * and the work is given a moment to clean up after itself (the spool removes its file)
 * before the failure is reported.
 */
async function guarded<T>(watch: StallWatch, work: Promise<T>, abort: () => void): Promise<T> {
  try {
    return await watch.step(work);
  } catch (err) {
    abort();
    await Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, watch.stallMs).unref())]);
    throw err;
  }
}

/**
 * The package as a file opened for random access, its first bytes checked to be a ZIP.
 * A local file stream is opened where it lies (its own descriptor is closed unread; copied
 * as below when the file was deleted since the stream opened it);
 * any other source (object storage) is spooled to a private temporary file that is
 * unlinked as soon as it is open, so nothing is left behind on any path.
 */
export async function openPackageFile(source: Readable, watch: StallWatch): Promise<XlsxPackage> {
  const onBytes = () => watch.progress();
  const path = untouchedFilePath(source);
  // Opened by its path before the stream is let go: a file deleted since the stream opened it (its run purged meanwhile)
  // is no longer there by name, but the stream's own descriptor still reads it, and is copied below as any other source.
  const pkg =
    path === null
      ? null
      : await XlsxPackage.open(path, { onBytes }).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return null;
          source.destroy();
          throw err;
        });
  if (pkg !== null) {
    source.destroy();
    try {
      checkContent(await pkg.head(SNIFF_BYTES), 'xlsx');
    } catch (err) {
      await pkg.close();
      throw err;
    }
    return pkg;
  }

  const input = clocked(source, watch);
  const abortInput = () => {
    input.destroy();
    source.destroy();
  };
  const { head, replay } = await guarded(watch, peekBytes(input, SNIFF_BYTES), abortInput);
  try {
    checkContent(head, 'xlsx');
  } catch (err) {
    replay.destroy();
    throw err;
  }
  const spool = await guarded(watch, spoolToTempFile(replay), () => {
    replay.destroy();
    abortInput();
  });
  try {
    return await XlsxPackage.open(spool.path, { onBytes, unlink: true });
  } catch (err) {
    await spool.remove();
    throw err;
  }
}
