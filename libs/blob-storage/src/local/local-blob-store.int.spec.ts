import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { blobStoreContract } from '../testing/blob-store.contract';
import { UrlSigner } from '../url-signer';
import { LocalBlobStore } from './local-blob-store';

const signer = new UrlSigner(Buffer.from('test-secret'));
blobStoreContract(
  'local directory',
  async () => new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000'),
);

describe('local pre-signed URLs', () => {
  it('bind method, key and expiry to the signature', async () => {
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000/base');
    const { url } = await store.presign('runs/a/source', 'PUT', { expiresAt: new Date(Date.now() + 60_000) });
    const u = new URL(url);
    expect(u.pathname).toBe('/base/files/runs/a/source');
    const expires = Number(u.searchParams.get('expires'));
    const sig = u.searchParams.get('signature')!;
    expect(signer.check('PUT', 'runs/a/source', expires, sig)).toBe('valid');
    expect(signer.check('GET', 'runs/a/source', expires, sig)).toBe('invalid');
    expect(signer.check('PUT', 'runs/b/source', expires, sig)).toBe('invalid');
    expect(signer.check('PUT', 'runs/a/source', expires + 1, sig)).toBe('invalid');
    expect(signer.check('PUT', 'runs/a/source', expires, sig, new Date((expires + 1) * 1000))).toBe('expired');
  });
  it('leaves no temporary file behind when a join fails midway', async () => {
    const root = mkdtempSync(join(tmpdir(), 'blobs-'));
    const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
    await store.put('runs/a/source', Readable.from([Buffer.alloc(3 * 1024 * 1024)]));
    await expect(store.putJoined('runs/a/joined', [{ key: 'runs/a/source' }], { maxBytes: 2 * 1024 * 1024 })).rejects.toThrow(
      /larger than/,
    );
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
    expect(await store.stat('runs/a/joined')).toBeNull();
  });
  it('refuses keys that would leave the directory', async () => {
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000');
    await expect(store.stat('../etc/passwd')).rejects.toThrow(/Invalid blob key/);
    await expect(store.stat('/etc/passwd')).rejects.toThrow(/Invalid blob key/);
  });
});

describe('local blob files are owner-only', () => {
  it('creates directories 0700 and blobs 0600 (also through if-none-match), with a permissive umask', async () => {
    const previous = process.umask(0o002);
    try {
      const root = join(mkdtempSync(join(tmpdir(), 'blobs-modes-')), 'blobs');
      const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
      await store.put('runs/r1/source', Readable.from([Buffer.from('a,b\n1,2\n')]));
      await store.put('runs/r1/output.json', Readable.from([Buffer.from('[]')]), { ifNoneMatch: true });
      await store.putJoined('runs/r1/output.csv', ['a\n', { key: 'runs/r1/source', start: 4 }]);
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? [join(dir, e.name), ...walk(join(dir, e.name))] : [join(dir, e.name)],
        );
      const entries = [root, ...walk(root)];
      expect(entries.map((p) => p.slice(root.length))).toEqual(
        expect.arrayContaining(['', '/tmp', '/objects', '/objects/runs/r1/source', '/objects/runs/r1/output.csv']),
      );
      for (const p of entries) {
        const expected = statSync(p).isDirectory() ? '700' : '600';
        expect({ p, mode: (statSync(p).mode & 0o777).toString(8) }).toEqual({ p, mode: expected });
      }
    } finally {
      process.umask(previous);
    }
  });
});
