import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import yazl from 'yazl';

/**
 * Test helpers: a workbook's parts unpacked, changed, and packed again in a chosen order
 * (no binary workbooks are checked in; the tests make theirs from exceljs output).
 */

export type Parts = Map<string, Buffer | (() => Readable)>;

/** The parts of a ZIP package, unpacked, in stored order. */
export async function partsOf(zip: Buffer): Promise<Map<string, Buffer>> {
  const parts = new Map<string, Buffer>();
  const file = await new Promise<yauzl.ZipFile>((res, rej) =>
    yauzl.fromBuffer(zip, { lazyEntries: true }, (e, z) => (e ? rej(e) : res(z))),
  );
  await new Promise<void>((res, rej) => {
    file.on('entry', (entry: yauzl.Entry) =>
      file.openReadStream(entry, (err, s) => {
        if (err) return rej(err);
        const chunks: Buffer[] = [];
        s.on('data', (c: Buffer) => chunks.push(c));
        s.on('error', rej);
        s.on('end', () => {
          parts.set(entry.fileName, Buffer.concat(chunks));
          file.readEntry();
        });
      }),
    );
    file.on('end', () => res());
    file.readEntry();
  });
  return parts;
}

/** Packs parts into a ZIP with yazl, in the map's order (deflated, data descriptors after each part). */
export async function pack(parts: Parts): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, body] of parts) {
    if (name.endsWith('/')) zip.addEmptyDirectory(name);
    else if (Buffer.isBuffer(body)) zip.addBuffer(body, name);
    else zip.addReadStream(body(), name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function repack(zip: Buffer, change: (parts: Parts) => void): Promise<Buffer> {
  const parts: Parts = await partsOf(zip);
  change(parts);
  return pack(parts);
}

/** The same package with the named parts stored first, in that order (e.g. shared strings before the sheet). */
export async function reorder(zip: Buffer, first: string[]): Promise<Buffer> {
  const parts = await partsOf(zip);
  const ordered: Parts = new Map();
  for (const name of first) if (parts.has(name)) ordered.set(name, parts.get(name)!);
  for (const [name, body] of parts) if (!ordered.has(name)) ordered.set(name, body);
  return pack(ordered);
}

/** The order parts are stored in. */
export async function storedOrder(zip: Buffer): Promise<string[]> {
  return [...(await partsOf(zip)).keys()];
}
