import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobExistsError, BlobNotFoundError, BlobTooLargeError, type BlobStore } from '../blob-store.port';

export const readAll = async (r: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

/**
 * Behaviour every BlobStore adapter must have. `urls: false` for a store nothing outside the
 * process can reach (memory): it must refuse to presign rather than hand out a URL that fails.
 */
export function blobStoreContract(name: string, create: () => Promise<BlobStore>, { urls = true }: { urls?: boolean } = {}): void {
  describe(`BlobStore contract: ${name}`, () => {
    let store: BlobStore;
    beforeEach(async () => {
      store = await create();
    });
    const key = () => `runs/${randomUUID()}/source`;

    it('stores a stream and reads back the same bytes', async () => {
      const k = key();
      const body = Buffer.from('héllo,wörld\n'.repeat(10000));
      expect(await store.put(k, Readable.from([body.subarray(0, 7), body.subarray(7)]))).toEqual({ size: body.length });
      expect(await store.stat(k)).toEqual({ size: body.length });
      expect((await readAll(await store.openRead(k))).equals(body)).toBe(true);
    });

    it('reads from a start byte to the end (a row index starts readers mid-file)', async () => {
      const k = key();
      const body = Buffer.from('a,b\n'.repeat(5000) + 'last,row\n');
      await store.put(k, Readable.from([body]));
      expect((await readAll(await store.openRead(k, { start: 12345 }))).equals(body.subarray(12345))).toBe(true);
      expect((await readAll(await store.openRead(k, { start: 0 }))).equals(body)).toBe(true);
      expect((await readAll(await store.openRead(k, { start: body.length - 9 }))).toString()).toBe('last,row\n');
    });

    it('reads a range that stops before an end byte (the first part of a file scanned in two)', async () => {
      const k = key();
      const body = Buffer.from('a,b\n'.repeat(5000) + 'last,row\n');
      await store.put(k, Readable.from([body]));
      expect((await readAll(await store.openRead(k, { end: 12345 }))).equals(body.subarray(0, 12345))).toBe(true);
      expect((await readAll(await store.openRead(k, { start: 100, end: 12345 }))).equals(body.subarray(100, 12345))).toBe(true);
      expect((await readAll(await store.openRead(k, { start: 7, end: 7 }))).length).toBe(0);
      expect((await readAll(await store.openRead(k, { start: 10, end: body.length + 50 }))).equals(body.subarray(10))).toBe(true);
    });

    it('reports missing blobs', async () => {
      const k = key();
      expect(await store.stat(k)).toBeNull();
      await expect(store.openRead(k)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('joins texts and blobs, each blob from its start byte, into one blob', async () => {
      const [a, b, joined] = [key(), key(), key()];
      const first = Buffer.from(',\n{"a":"é"}'.repeat(150_000)); // over a megabyte: the copy takes more than one buffer
      const second = Buffer.from(',\n{"a":2}');
      await store.put(a, Readable.from([first]));
      await store.put(b, Readable.from([second]));
      const expected = Buffer.concat([Buffer.from('['), first.subarray(1), second, Buffer.from('\n]\n')]);
      expect(await store.putJoined(joined, ['[', { key: a, start: 1 }, { key: b }, '\n]\n'])).toEqual({ size: expected.length });
      expect((await readAll(await store.openRead(joined))).equals(expected)).toBe(true);
      expect(await store.stat(a)).toEqual({ size: first.length }); // the pieces are left as they were
    });

    it("joins pieces the caller gives up into the same bytes (what is left of them is the caller's to delete)", async () => {
      const [a, b, joined] = [key(), key(), key()];
      const first = Buffer.from('[\n{"a":"é"}'.repeat(150_000));
      const second = Buffer.from(',\n{"a":2}');
      await store.put(a, Readable.from([first]), { scratch: true });
      await store.put(b, Readable.from([second]), { scratch: true });
      const expected = Buffer.concat([first, second, Buffer.from('\n]\n')]);
      const taken = [{ key: a, take: true }, { key: b, take: true }, '\n]\n'];
      expect(await store.putJoined(joined, taken)).toEqual({ size: expected.length });
      expect((await readAll(await store.openRead(joined))).equals(expected)).toBe(true);
      expect(await store.stat(b)).toEqual({ size: second.length }); // only a first piece may be moved
      await store.delete(a);
      await store.delete(b);
      expect((await readAll(await store.openRead(joined))).equals(expected)).toBe(true);
    });

    it('joins a blob piece that starts at its end as nothing', async () => {
      const [a, joined] = [key(), key()];
      await store.put(a, Readable.from([Buffer.from('abc')]));
      expect(await store.putJoined(joined, ['x', { key: a, start: 3 }, { key: a, start: 1 }, 'y'])).toEqual({ size: 4 });
      expect((await readAll(await store.openRead(joined))).toString()).toBe('xbcy');
    });

    it('keeps nothing when a piece of a join is missing, or the join passes maxBytes', async () => {
      const [a, joined] = [key(), key()];
      await store.put(a, Readable.from([Buffer.alloc(600)]));
      await expect(store.putJoined(joined, ['x', { key: a }, { key: key() }])).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store.stat(joined)).toBeNull();
      await expect(store.putJoined(joined, [{ key: a }, { key: a }], { maxBytes: 1000 })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.stat(joined)).toBeNull();
      await expect(store.putJoined(joined, [{ key: a, start: 601 }])).rejects.toBeInstanceOf(RangeError);
      await expect(store.putJoined(joined, [{ key: a, start: -1 }])).rejects.toBeInstanceOf(RangeError);
      expect(await store.stat(joined)).toBeNull();
      await store.put(joined, Readable.from([Buffer.from('kept')]));
      await expect(store.putJoined(joined, [{ key: a }], { ifNoneMatch: true })).rejects.toBeInstanceOf(BlobExistsError);
      expect((await readAll(await store.openRead(joined))).toString()).toBe('kept');
    });

    it('keeps nothing when the body passes maxBytes', async () => {
      const k = key();
      await expect(store.put(k, Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      expect(await store.stat(k)).toBeNull();
    });

    it('keeps nothing when the body stream fails midway', async () => {
      const k = key();
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(100));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(store.put(k, failing)).rejects.toThrow('client went away');
      expect(await store.stat(k)).toBeNull();
    });

    it('refuses to overwrite with ifNoneMatch and keeps the first blob', async () => {
      const k = key();
      await store.put(k, Readable.from([Buffer.from('first')]), { ifNoneMatch: true });
      await expect(store.put(k, Readable.from([Buffer.from('second')]), { ifNoneMatch: true })).rejects.toBeInstanceOf(BlobExistsError);
      expect((await readAll(await store.openRead(k))).toString()).toBe('first');
    });

    it('deletes', async () => {
      const k = key();
      await store.put(k, Readable.from([Buffer.from('x')]));
      await store.delete(k);
      expect(await store.stat(k)).toBeNull();
    });

    if (!urls)
      it('refuses to presign: nothing outside the process could use the URL', async () => {
        await expect(store.presign(key(), 'GET', { expiresAt: new Date(Date.now() + 60_000) })).rejects.toThrow('no URL');
      });

    if (urls)
      it('presigns distinct URLs per method, with the upload headers', async () => {
        const k = key();
        const expiresAt = new Date(Date.now() + 60_000);
        const put = await store.presign(k, 'PUT', { expiresAt, contentType: 'text/csv' });
        const get = await store.presign(k, 'GET', { expiresAt });
        expect(put.method).toBe('PUT');
        expect(put.headers['Content-Type']).toBe('text/csv');
        expect(get.method).toBe('GET');
        expect(put.url).not.toEqual(get.url);
      });
  });
}
