import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { Readable, Transform, pipeline, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { SourceProblem } from './source-problem';

/** An OOXML workbook has tens of parts; thousands means something else. */
export const MAX_PARTS = 10_000;

/** Bytes per read from the package file: large enough that a sheet streams in few system calls. */
const READ_CHUNK_BYTES = 256 * 1024;
/** Inflater output per chunk: at zlib's default 16 KiB, per-chunk overhead doubles the time to unpack a large sheet. */
const INFLATE_CHUNK_BYTES = 128 * 1024;

export const notAZip = () => new SourceProblem('unreadableFile', 'The workbook is damaged: it is not a readable ZIP package.');
export const tooLarge = (detail: string) => new SourceProblem('archiveTooLarge', `The workbook unpacks to too much data: ${detail}`);

/**
 * Bytes [start, end) of the package file by positioned reads on the shared handle.
 * (fs.ReadStream will not do: destroying one, as yauzl does with a part it is done with,
 * closes the descriptor under every other part.)
 */
class RangeStream extends Readable {
  private position: number;

  constructor(
    private readonly file: FileHandle,
    start: number,
    private readonly end: number,
    private readonly onBytes: (bytes: number) => void,
  ) {
    super({ highWaterMark: READ_CHUNK_BYTES });
    this.position = start;
  }

  override _read(): void {
    const length = Math.min(READ_CHUNK_BYTES, this.end - this.position);
    if (length <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(length);
    this.file.read(buffer, 0, length, this.position).then(
      ({ bytesRead }) => {
        if (this.destroyed) return; // the part was abandoned while this read was in flight
        this.position += bytesRead;
        this.onBytes(bytesRead);
        // A file shorter than the directory says ends the range early; yauzl's byte count then fails the part.
        this.push(bytesRead === 0 ? null : buffer.subarray(0, bytesRead));
      },
      (err: Error) => this.destroy(err),
    );
  }
}

/**
 * yauzl's window on the package file. Every byte it reads goes through here, so the
 * stall watchdog can judge progress by bytes read from the package (compressed), not by
 * rows produced: a slow sheet that is still being read is never called damaged.
 */
class CountingFileReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly file: FileHandle,
    private readonly onBytes: (bytes: number) => void,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return new RangeStream(this.file, start, end, this.onBytes);
  }

  /** Small positioned reads (central directory, local headers, content sniffing) straight from the handle. */
  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ) {
    void (async () => {
      let done = 0;
      while (done < length) {
        const { bytesRead } = await this.file.read(buffer, offset + done, length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
        this.onBytes(bytesRead);
      }
      return done;
    })().then(
      (done) => callback(null, done),
      (err: Error) => callback(err),
    );
  }
}

const zipOptions = { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false };

/**
 * A ZIP package read with random access from one open file: the central directory gives
 * every part's place, so parts are read in the order the reader needs (shared strings
 * before the sheet), whatever order the writer stored them in.
 */
export class XlsxPackage {
  private zip: ZipFile | null = null;
  private listing: Promise<Map<string, Entry>> | null = null;
  private closed = false;

  private constructor(
    private readonly file: FileHandle,
    private readonly reader: CountingFileReader,
    readonly size: number,
  ) {}

  /**
   * Opens the package file. `unlink` removes the path at once (a spooled copy): the open
   * handle keeps it readable and nothing is left behind, whatever happens to the read.
   */
  static async open(path: string, options: { onBytes: (bytes: number) => void; unlink?: boolean }): Promise<XlsxPackage> {
    const file = await fs.open(path, 'r');
    try {
      if (options.unlink) await fs.rm(path, { force: true });
      const { size } = await file.stat();
      return new XlsxPackage(file, new CountingFileReader(file, options.onBytes), size);
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  /** The first `bytes` bytes of the file (content sniffing). */
  async head(bytes: number): Promise<Buffer> {
    const buffer = Buffer.alloc(Math.min(bytes, this.size));
    const { bytesRead } = await this.file.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  }

  /** A fresh yauzl view of the package, its central directory parsed again (the package check lists entries its own way). */
  openZip(): Promise<ZipFile> {
    return new Promise((resolve, reject) =>
      yauzl.fromRandomAccessReader(this.reader, this.size, zipOptions, (err, zip) => (err || !zip ? reject(notAZip()) : resolve(zip))),
    );
  }

  /** The parts by lower-cased name, listed once from the central directory. */
  private parts(): Promise<Map<string, Entry>> {
    this.listing ??= this.openZip().then(async (zip) => {
      this.zip = zip;
      return new Map((await listParts(zip)).map((p) => [p.fileName.toLowerCase(), p]));
    });
    return this.listing;
  }

  /** The part named `name`; OPC part names are case-insensitive. */
  async part(name: string): Promise<Entry | undefined> {
    return (await this.parts()).get(name.toLowerCase());
  }

  /** Names of every part, as stored. */
  async partNames(): Promise<string[]> {
    return [...(await this.parts()).values()].map((p) => p.fileName);
  }

  /** The unpacked bytes of one part (see openPartStream). */
  openPart(entry: Entry): Promise<Readable> {
    return openPartStream(this.zip!, entry);
  }

  /** Closes the file once; the handle waits for reads still in flight, so no descriptor is reused under them. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.zip?.close();
    await this.file.close();
  }
}

/** The central directory's entries, refused past MAX_PARTS (listing a million-entry directory is an attack of its own). */
export function listParts(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const parts: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      if (parts.length >= MAX_PARTS) return reject(tooLarge(`more than ${MAX_PARTS} parts.`));
      parts.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(parts));
    zip.on('error', () => reject(notAZip()));
    zip.readEntry();
  });
}

/** Fails a part that unpacks to more or fewer bytes than its central directory entry declares. */
class DeclaredSize extends Transform {
  private seen = 0;

  constructor(
    private readonly declared: number,
    private readonly name: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.seen += chunk.length;
    if (this.seen > this.declared) done(new Error(`${this.name} unpacks past its declared ${this.declared} bytes`));
    else done(null, chunk);
  }

  override _flush(done: TransformCallback) {
    done(this.seen === this.declared ? null : new Error(`${this.name} unpacks to ${this.seen} bytes, not ${this.declared}`));
  }
}

/**
 * The unpacked bytes of one part. yauzl gives the part's raw bytes; they are inflated
 * here with large output chunks, and must come to exactly the declared size: a part
 * that inflates past it (a lying zip bomb) fails as soon as it does. Destroying the
 * returned stream stops reading the file.
 */
export async function openPartStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  if (entry.isEncrypted() || (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)) {
    throw new Error(`${entry.fileName}: encrypted or compressed with method ${entry.compressionMethod}`);
  }
  const raw = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, { decodeFileData: false }, (err, stream) => (err ? reject(err) : resolve(stream))),
  );
  const check = new DeclaredSize(entry.uncompressedSize, entry.fileName);
  const noteFailure = () => undefined; // each stream's error reaches the reader through `check`
  if (entry.compressionMethod === 0) pipeline(raw, check, noteFailure);
  else pipeline(raw, zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK_BYTES }), check, noteFailure);
  return check;
}
