import { mkdtempSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobNotFoundError } from '../blob-store.port';
import { blobStoreContract, readAll } from '../testing/blob-store.contract';
import { UrlSigner } from '../url-signer';
import { LocalBlobStore, READ_PIECE_BYTES } from './local-blob-store';

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
  it("tells each chunk of a put, in order, once it is in the file; a chunk given away then is stored all the same, and a callback's failure keeps nothing", async () => {
    const root = mkdtempSync(join(tmpdir(), 'blobs-'));
    const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
    const chunks = ['first,', 'second,', 'third'].map((text) => Buffer.from(text.repeat(2000)));
    const expected = Buffer.concat(chunks);
    const heard: string[] = [];
    const { size } = await store.put('runs/a/source', Readable.from(chunks), {
      onChunkWritten: (chunk) => {
        heard.push(chunk.toString('latin1', 0, 5));
        structuredClone(chunk.buffer, { transfer: [chunk.buffer as ArrayBuffer] }); // given away: detached here
      },
    });
    expect(heard).toEqual(['first', 'secon', 'third']);
    expect(chunks.every((chunk) => chunk.byteLength === 0)).toBe(true);
    expect(size).toBe(expected.length);
    expect(Buffer.compare(await readAll(await store.openRead('runs/a/source')), expected)).toBe(0);

    await expect(
      store.put('runs/b/source', Readable.from([Buffer.from('a'), Buffer.from('b')]), {
        onChunkWritten: () => {
          throw new Error('the listener failed');
        },
      }),
    ).rejects.toThrow('the listener failed');
    expect(await store.stat('runs/b/source')).toBeNull();
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
  });
  it('opens the file before it answers: one deleted after it was found is BlobNotFoundError, not a late error of a stream let go unread', async () => {
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000');
    await store.put('runs/a/source', Readable.from([Buffer.from('a,b\n')]));
    const found = store.stat.bind(store);
    jest.spyOn(store, 'stat').mockImplementation(async (key) => {
      const size = await found(key);
      await store.delete(key); // the run deleted between the look and the open
      return size;
    });
    // A reader that lets the stream go unread at once (the XLSX reader, which opens the file by its path; the upload
    // route's check of a re-sent body of another length) added no listener: an open failing after that ended the process.
    const read = store.openRead('runs/a/source').then((stream) => void stream.destroy());
    await expect(read).rejects.toBeInstanceOf(BlobNotFoundError);
  });
  it("reads a stored file in pieces small enough for malloc's arena: under package.json's mmap threshold, its header included", async () => {
    // glibc maps a block of its own once the request and its 8-byte header reach MALLOC_MMAP_THRESHOLD_: fresh pages,
    // each faulted in as the read fills it (docs/decisions.md, "A stored file is read in pieces under 64 KiB").
    const { config } = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as {
      config: { malloc_mmap_threshold: string };
    };
    expect(READ_PIECE_BYTES + 8).toBeLessThan(Number(config.malloc_mmap_threshold));
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000');
    const body = Buffer.alloc(5 * READ_PIECE_BYTES + 123, 'x');
    await store.put('runs/a/source', Readable.from([body]));
    const pieces: number[] = [];
    for await (const piece of await store.openRead('runs/a/source', { start: 7 })) pieces.push((piece as Buffer).length);
    expect(pieces).toEqual([...Array(5).fill(READ_PIECE_BYTES), 123 - 7]);
  });
  it('refuses keys that would leave the directory', async () => {
    const store = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')), signer, 'http://127.0.0.1:3000');
    await expect(store.stat('../etc/passwd')).rejects.toThrow(/Invalid blob key/);
    await expect(store.stat('/etc/passwd')).rejects.toThrow(/Invalid blob key/);
  });
});

describe('local joins and scratch blobs', () => {
  it('makes a first piece given up the joined file itself, read from its start and used once, instead of copying it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'blobs-'));
    const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
    await store.put('runs/a/p1', Readable.from([Buffer.from('[\n1')]), { scratch: true });
    await store.put('runs/a/p2', Readable.from([Buffer.from(',\n2')]), { scratch: true });
    const inode = statSync(join(root, 'objects', 'runs/a/p1')).ino;
    expect(await store.putJoined('runs/a/out', [{ key: 'runs/a/p1', take: true }, { key: 'runs/a/p2', take: true }, '\n]\n'])).toEqual({
      size: 9,
    });
    expect(statSync(join(root, 'objects', 'runs/a/out')).ino).toBe(inode);
    expect(await store.stat('runs/a/p1')).toBeNull();
    expect(await store.stat('runs/a/p2')).toEqual({ size: 3 });
    expect(JSON.parse((await readAll(await store.openRead('runs/a/out'))).toString())).toEqual([1, 2]);
    expect(statSync(join(root, 'objects', 'runs/a/out')).mode & 0o777).toBe(0o600);

    // Not from its start, or read again by a later piece: copied, and left in place.
    await store.put('runs/a/p3', Readable.from([Buffer.from(',\n3')]));
    await store.putJoined('runs/a/out2', [{ key: 'runs/a/p3', start: 1, take: true }]);
    await store.putJoined('runs/a/out3', [{ key: 'runs/a/p3', take: true }, { key: 'runs/a/p3' }]);
    expect(await store.stat('runs/a/p3')).toEqual({ size: 3 });
    expect((await readAll(await store.openRead('runs/a/out2'))).toString()).toBe('\n3');
    expect((await readAll(await store.openRead('runs/a/out3'))).toString()).toBe(',\n3,\n3');
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
  });
  it('counts a piece it moved against maxBytes, and keeps nothing past it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'blobs-'));
    const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
    await store.put('runs/a/p1', Readable.from([Buffer.alloc(800)]), { scratch: true });
    await expect(store.putJoined('runs/a/out', [{ key: 'runs/a/p1', take: true }, 'x'.repeat(300)], { maxBytes: 1000 })).rejects.toThrow(
      /larger than/,
    );
    expect(await store.stat('runs/a/out')).toBeNull();
    expect(readdirSync(join(root, 'tmp'))).toEqual([]);
  });
  it('fsyncs every blob and the directories that name it before it appears, but scratch ones', async () => {
    const root = mkdtempSync(join(tmpdir(), 'blobs-'));
    const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
    const probe = await open(join(root, 'probe'), 'w');
    const sync = jest.spyOn(Object.getPrototypeOf(probe) as FileHandle, 'sync');
    await probe.close();
    const ino = (path: string) => statSync(join(root, path)).ino;
    try {
      await store.put('runs/a/scratch', Readable.from([Buffer.from('a')]), { scratch: true });
      expect(sync).not.toHaveBeenCalled();
      sync.mockClear();
      await store.put('runs/a/kept', Readable.from([Buffer.from('b')]));
      expect(sync).toHaveBeenCalledTimes(2); // the file, then objects/runs/a (it was there)
      sync.mockClear();
      await store.putJoined('runs/a/joined', [{ key: 'runs/a/scratch', take: true }, { key: 'runs/a/kept' }]);
      expect(sync).toHaveBeenCalledTimes(2);
      expect((await readAll(await store.openRead('runs/a/joined'))).toString()).toBe('ab');
      sync.mockClear();
      // New directories: each is named in its parent, fsynced too, up to the one that was there.
      const seen: number[] = [];
      sync.mockImplementation(async function (this: FileHandle) {
        seen.push(statSync(`/proc/self/fd/${this.fd}`).ino);
      });
      await store.put('runs/b/deep/kept', Readable.from([Buffer.from('c')]));
      expect(seen.slice(1)).toEqual([ino('objects/runs/b/deep'), ino('objects/runs/b'), ino('objects/runs')]);
      expect(seen[0]).toBe(ino('objects/runs/b/deep/kept'));
    } finally {
      sync.mockRestore();
    }
  });
});

describe('temporary files left by writes that never finished', () => {
  it('are removed once no write has touched them for a day; a blob, and a write under way, are left', async () => {
    const root = mkdtempSync(join(tmpdir(), 'blobs-'));
    const store = new LocalBlobStore(root, signer, 'http://127.0.0.1:3000');
    expect(await store.removeAbandonedTemporaryFiles()).toBe(0); // no tmp directory yet
    await store.put('runs/a/kept', Readable.from([Buffer.from('kept')]));
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    for (const name of ['abandoned-1', 'abandoned-2', 'in-progress']) writeFileSync(join(root, 'tmp', name), 'x');
    utimesSync(join(root, 'tmp', 'abandoned-1'), dayAgo, dayAgo);
    utimesSync(join(root, 'tmp', 'abandoned-2'), dayAgo, dayAgo);
    utimesSync(join(root, 'objects', 'runs/a/kept'), dayAgo, dayAgo);
    expect(await store.removeAbandonedTemporaryFiles()).toBe(2);
    expect(readdirSync(join(root, 'tmp'))).toEqual(['in-progress']);
    expect((await readAll(await store.openRead('runs/a/kept'))).toString()).toBe('kept');
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
