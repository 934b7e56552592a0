import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  it('refuses keys that would leave the directory', async () => {
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000');
    await expect(store.stat('../etc/passwd')).rejects.toThrow(/Invalid blob key/);
    await expect(store.stat('/etc/passwd')).rejects.toThrow(/Invalid blob key/);
  });
});
