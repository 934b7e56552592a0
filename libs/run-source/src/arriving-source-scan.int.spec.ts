import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { MessageChannel } from 'node:worker_threads';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { RunState } from '@app/domain';
import { DEFAULT_TABLE_LIMITS, openDelimited, scanDelimited, type DelimitedScan } from '@app/tabular';
import { ACK_BYTES, arrivingBytes, scanArrivingSource, type ArrivingBytesEnd } from './arriving-source-scan';
import { HEADER_SAMPLE_ROWS } from './inspect-structured-file';

/*
 * The scan that follows an upload: fed the body in whatever pieces the connection brings, and
 * the rest from the store when the sender stopped sending, it learns what the scan of the
 * stored file learns, and its row index reads on correctly from every entry.
 */

const ROWS = 60_000;
/** About 2.4 MB: CRLF rows, a quoted line break every 7th, text of two and three bytes a character. */
const TEXT =
  'id,text,place\r\n' +
  Array.from(
    { length: ROWS },
    (_, n) => `${n + 1},${(n + 1) % 7 === 0 ? `"two\r\nlines ${n + 1}"` : `plain ${n + 1}`},Zürich 日本\r\n`,
  ).join('');
const BYTES = Buffer.from(TEXT);

/** Pieces of 1 byte to 96 KiB, cut anywhere (inside a character, a CRLF, a quoted field). */
function randomPieces(bytes: Buffer, seed: number): Buffer[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = next() < 0.2 ? 1 + Math.floor(next() * 8) : 1 + Math.floor(next() * 96 * 1024);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

describe('scanArrivingSource', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  let run: RunState;
  let scanOfStored: DelimitedScan;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'arriving-scan-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    await blobs.put('runs/arriving/source', Readable.from([BYTES]));
    run = { id: 'arriving', filename: 'input.csv', source_key: 'runs/arriving/source' } as unknown as RunState;
    scanOfStored = await scanDelimited(await blobs.openRead(run.source_key), null, { headRows: HEADER_SAMPLE_ROWS });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the scan; the sender's side of the port, and every acknowledgement it heard. */
  function started(forRun = run) {
    const { port1, port2 } = new MessageChannel();
    const acks: number[] = [];
    port1.on('message', (bytes: number) => void acks.push(bytes));
    const progress: number[] = [];
    const result = scanArrivingSource(port2, blobs, forRun, DEFAULT_TABLE_LIMITS, (rows) => void progress.push(rows));
    const send = (piece: Uint8Array | ArrivingBytesEnd) => port1.postMessage(piece);
    return { port: port1, acks, progress, result, send };
  }

  /** Every index entry names the row that starts there: its first cell is the row's number (the header is row 0). */
  async function expectIndexReadsOn(scan: DelimitedScan) {
    const index = scan.rowIndex!;
    expect(index.rows).toBe(ROWS + 1);
    expect(index.entries.length).toBeGreaterThan(10);
    for (const [before, byte] of [index.entries[1], index.entries[Math.floor(index.entries.length / 2)], index.entries.at(-1)!]) {
      const table = await openDelimited(await blobs.openRead(run.source_key, { start: byte }), ',', {
        alreadyIngested: true,
        encoding: 'utf-8',
        resumeWithLinebreak: index.linebreak,
      });
      const batches = table.batches[Symbol.asyncIterator]();
      const first = (await batches.next()).value as string[][];
      await batches.return?.(undefined); // the file is let go
      expect(first[0][0]).toBe(String(before));
    }
  }

  it.each([1, 2, 3])('learns from the body in random pieces (seed %i) what the scan of the stored file learns', async (seed) => {
    const { result, send, acks, progress } = started();
    for (const piece of randomPieces(BYTES, seed)) send(new Uint8Array(piece));
    send(null);
    const arrived = await result;
    if (arrived === 'not scanned') throw new Error('not scanned');
    expect(arrived.bytes).toBe(BYTES.length);
    const { rowIndex, ...learned } = arrived.scan;
    const { rowIndex: storedIndex, ...fromStored } = scanOfStored;
    expect(learned).toEqual(fromStored);
    expect(rowIndex!.linebreak).toBe(storedIndex!.linebreak);
    await expectIndexReadsOn(arrived.scan);
    // The sender hears that it started (0), then how far it read, never going back, never past what was sent.
    expect(acks[0]).toBe(0);
    expect(acks.length).toBeGreaterThanOrEqual(Math.floor(BYTES.length / ACK_BYTES) - 1);
    expect(acks).toEqual([...acks].sort((a, b) => a - b));
    expect(Math.max(...acks)).toBeLessThanOrEqual(BYTES.length);
    expect(progress.at(-1)).toBe(ROWS + 1);
  });

  it('stops within a piece or two when the sender gives up behind pieces it already sent (no turn of the event loop needed)', async () => {
    const { port1, port2 } = new MessageChannel();
    const { input } = arrivingBytes(
      port2,
      () => undefined,
      () => Promise.reject(new Error('not read')),
    );
    const PIECE = 64 * 1024;
    for (let i = 0; i < 100; i++) port1.postMessage(new Uint8Array(PIECE)); // 6.4 MB the scan has not taken yet
    let taken = 0;
    let stopped: unknown = null;
    try {
      // As the scan reads: what is already here is taken without the event loop turning.
      for await (const chunk of input) {
        if (taken === 0) port1.postMessage(false satisfies ArrivingBytesEnd);
        taken += (chunk as Buffer).length;
      }
    } catch (err) {
      stopped = err;
    } finally {
      port1.close();
    }
    expect((stopped as Error).message).toMatch(/no longer wanted/);
    // Handed on a piece or two at a time, the stop seen at the next: not the whole backlog first.
    expect(taken).toBeLessThan(10 * PIECE);
  });

  it('lets go of a stored rest that opens after the scan was given up, an error it meets later included', async () => {
    const { port1, port2 } = new MessageChannel();
    let opened!: (stream: Readable) => void;
    const { input } = arrivingBytes(
      port2,
      () => undefined,
      () => new Promise<Readable>((resolve) => (opened = resolve)),
    );
    const ended = new Promise((resolve) => input.once('close', resolve));
    try {
      port1.postMessage({ storedFrom: 0 } satisfies ArrivingBytesEnd);
      await new Promise((resolve) => setImmediate(resolve));
      input.destroy(); // the scan is given up while the rest is being opened
      await ended;
      const late = new PassThrough();
      opened(late);
      await new Promise((resolve) => setImmediate(resolve));
      expect(late.destroyed).toBe(true);
      // A file stream's open that fails after it was let go (the file deleted meanwhile): heard, not thrown at the process.
      expect(() => late.emit('error', new Error('ENOENT: the file was deleted'))).not.toThrow();
    } finally {
      port1.close();
    }
  });

  it.each([
    ['one chunk', [Buffer.alloc(10, 99)]],
    ['no byte', []],
    ['several chunks', [Buffer.alloc(3, 1), Buffer.alloc(70_000, 2), Buffer.alloc(5, 3)]],
  ])('hands on every byte in order when the stored rest (%s) ends while sent pieces still wait', async (_name, restChunks) => {
    const { port1, port2 } = new MessageChannel();
    const pieces = Array.from({ length: 20 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const sent = pieces.reduce((n, p) => n + p.length, 0);
    const { input } = arrivingBytes(
      port2,
      () => undefined,
      async (from) => {
        expect(from).toBe(sent);
        return Readable.from(restChunks.map((c) => Buffer.from(c)));
      },
    );
    for (const piece of pieces) port1.postMessage(new Uint8Array(piece));
    port1.postMessage({ storedFrom: sent } satisfies ArrivingBytesEnd);
    const out: Buffer[] = [];
    let first = true;
    for await (const chunk of input) {
      out.push(chunk as Buffer);
      // A slow first step of the scan: the rest is read and ends while most pieces still wait here.
      if (first) await new Promise((r) => setTimeout(r, 30));
      first = false;
    }
    port1.close();
    expect(Buffer.concat(out).equals(Buffer.concat([...pieces, ...restChunks]))).toBe(true);
  });

  it('reads the rest from the store when the sender stopped sending partway', async () => {
    const { result, send } = started();
    const stoppedAt = 1_000_003; // inside a row
    for (const piece of randomPieces(BYTES.subarray(0, stoppedAt), 7)) send(new Uint8Array(piece));
    send({ storedFrom: stoppedAt });
    const arrived = await result;
    if (arrived === 'not scanned') throw new Error('not scanned');
    expect(arrived.bytes).toBe(BYTES.length);
    expect(arrived.scan.rows).toBe(scanOfStored.rows);
    expect(arrived.scan.widths).toEqual(scanOfStored.widths);
    expect(arrived.scan.head).toEqual(scanOfStored.head);
    await expectIndexReadsOn(arrived.scan);
  });

  it('reads the whole file from the store when nothing was sent', async () => {
    const { result, send } = started();
    send({ storedFrom: 0 });
    const arrived = await result;
    expect(arrived !== 'not scanned' && arrived.scan.rows).toBe(ROWS + 1);
  });

  it('answers "not scanned" when the upload stops, or the port closes, before the last byte', async () => {
    const stopped = started();
    stopped.send(new Uint8Array(BYTES.subarray(0, 100_000)));
    stopped.send(false);
    await expect(stopped.result).resolves.toBe('not scanned');

    // Also after the last byte (here: the rest to be read from the store): the run was refused, the scan is no longer wanted.
    const refused = started();
    refused.send(new Uint8Array(BYTES.subarray(0, 100_000)));
    refused.send({ storedFrom: 100_000 });
    refused.send(false);
    await expect(refused.result).resolves.toBe('not scanned');

    const closed = started();
    closed.send(new Uint8Array(BYTES.subarray(0, 100_000)));
    closed.port.close();
    await expect(closed.result).resolves.toBe('not scanned');
  });

  it('answers "not scanned" for a file the stored read must decide: not text, or no delimited file at all', async () => {
    const binary = started();
    binary.send(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 1, 2, 3]));
    binary.send(null);
    await expect(binary.result).resolves.toBe('not scanned');

    const workbook = started({ ...run, filename: 'input.xlsx' });
    workbook.send(null);
    await expect(workbook.result).resolves.toBe('not scanned');
  });
});
