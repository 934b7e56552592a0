import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';

/**
 * A local blob store in a temporary folder for the tests of one describe block: made before
 * them (and handed to `use` with its folder), removed with its files after them.
 */
export function withTempBlobStore(prefix: string, use: (blobs: LocalBlobStore, dir: string) => void): void {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    use(new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1'), dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
}
