import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { MessagePort } from 'node:worker_threads';
import { LocalBlobStore, readWholeBlob, UrlSigner } from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import { rowIndexKeyOf, type RunState } from '@app/domain';
import { inspectStructuredFile, parsedFromScan } from '@app/run-source';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { ArrivingScans, GATHER_BYTES, type ArrivingSource } from './arriving-scans';
import { SourceInspector } from './source-inspector';
import { inProcessCpu } from './testing/in-process-cpu';

/*
 * A delimited upload scanned as its bytes arrive (the tasks run here, as between threads:
 * inProcessCpu): ingestion takes that scan instead of reading the stored file, and gets exactly
 * what reading it gives; whenever the scan could not follow the upload to its end, ingestion
 * reads the stored file as before.
 */

const CONFIG = { tableLimits: DEFAULT_TABLE_LIMITS } as AppConfig;
const row = (n: number, broken: boolean) => `${n},"name ${n}",${broken && n % 3 === 0 ? '"two\nlines"' : 'plain'},Köln\n`;
const fileOf = (rows: number, broken: boolean) =>
  Buffer.from('id,name,text,place\n' + Array.from({ length: rows }, (_, n) => row(n + 1, broken)).join(''));
/** Line breaks in quoted cells. */
const SMALL = fileOf(20_000, true);
/** Over the 16 MiB from which the stored file is read in two parts; no line break in a quoted cell, so the parts always join. */
const BIG = fileOf(560_000, false);

describe('ArrivingScans and SourceInspector', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  let runs = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'arriving-scans-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const runFor = (filename = 'input.csv'): RunState => {
    const key = `runs/r${++runs}/source`;
    return { id: `r${runs}`, filename, source_key: key, rows_key: key } as unknown as RunState;
  };

  /** What ingestion gets from a read of the stored file, the row index that read stored removed first. */
  async function readStored(run: RunState) {
    await blobs.delete(rowIndexKeyOf(run.source_key));
    return inspectStructuredFile(blobs, run, DEFAULT_TABLE_LIMITS, () => undefined);
  }

  /** The upload route's part: the body shown to the follower piece by piece as it is stored, then the end told. */
  async function upload(
    run: RunState,
    bytes: Buffer,
    follower: ArrivingSource | null,
    { pieceBytes = 64 * 1024, letScanRead = true } = {},
  ) {
    for (let at = 0; at < bytes.length; at += pieceBytes) {
      follower?.bytes(bytes.subarray(at, at + pieceBytes));
      if (letScanRead) await turn(); // the connection's next piece comes later: the scan reads meanwhile
    }
    const { size } = await blobs.put(run.source_key, Readable.from([bytes]));
    follower?.arrived(size);
  }

  it('takes the scan made as the file arrived: the outcome of reading the stored file, and no read of it', async () => {
    const run = runFor();
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const inspector = new SourceInspector(blobs, CONFIG, cpu);
    const follower = inspector.sourceArriving(run, SMALL.length);
    expect(follower).not.toBeNull();
    await upload(run, SMALL, follower);
    const heard: number[] = [];
    const outcome = await inspector.inspect(run, { onProgress: (rows) => void heard.push(rows) });
    expect(calls.map((c) => c.name)).toEqual(['warm', 'scanArrivingSource']);
    expect(outcome).toEqual(await readStored(run));
    expect(heard.at(-1)).toBe(20_001);
  });

  it('moves a piece that is all of its memory to the scan and copies one that shares it; either way the scan is the stored file', async () => {
    const run = runFor();
    const { cpu } = inProcessCpu(blobs, 2);
    const inspector = new SourceInspector(blobs, CONFIG, cpu);
    const follower = inspector.sourceArriving(run, SMALL.length)!;
    const own = Buffer.from(SMALL.subarray(0, 64 * 1024)); // memory of its own, as a socket's read
    const shared = SMALL.subarray(64 * 1024, 128 * 1024); // a view of SMALL's memory
    follower.bytes(own);
    follower.bytes(shared);
    expect(own.byteLength).toBe(0); // moved: the caller gave it up
    expect(shared.byteLength).toBe(64 * 1024);
    expect(Buffer.compare(SMALL.subarray(64 * 1024, 128 * 1024), shared)).toBe(0); // copied: SMALL is untouched
    for (let at = 128 * 1024; at < SMALL.length; at += 64 * 1024) follower.bytes(Buffer.from(SMALL.subarray(at, at + 64 * 1024)));
    const { size } = await blobs.put(run.source_key, Readable.from([SMALL]));
    follower.arrived(size);
    expect(await inspector.inspect(run)).toEqual(await readStored(run));
  });

  it("gathers pieces under 64 KiB (a chunked body's) into blocks of 1 MiB: glibc takes such pieces from its main arena, which holding them grew", async () => {
    const run = runFor();
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const inspector = new SourceInspector(blobs, CONFIG, cpu);
    const sentSizes: number[] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the port as `this`
    const post = MessagePort.prototype.postMessage;
    const posting = jest.spyOn(MessagePort.prototype, 'postMessage').mockImplementation(function (this: MessagePort, message, transfer) {
      if (message instanceof Uint8Array) sentSizes.push(message.buffer.byteLength);
      return post.call(this, message, transfer);
    });
    // Some MB, under the size scanned in two parts: the scan is never given up for falling behind here.
    const file = fileOf(150_000, false);
    const follower = inspector.sourceArriving(run, Infinity)!;
    // As a chunked body comes: each piece of its own memory, the chunks' framing cutting every 64 KiB read in two.
    const pieces: Buffer[] = [];
    for (let at = 0, i = 0; at < file.length; i++) {
      const size = i % 2 === 0 ? 40_000 : 65_526 - 40_000;
      pieces.push(Buffer.from(file.subarray(at, at + size)));
      at += size;
    }
    for (const piece of pieces) follower.bytes(piece);
    const { size } = await blobs.put(run.source_key, Readable.from([file]));
    follower.arrived(size);
    const outcome = await inspector.inspect(run);
    posting.mockRestore();
    expect(pieces.every((piece) => piece.byteLength > 0)).toBe(true); // copied, not moved
    expect(file.length).toBeGreaterThan(4 * GATHER_BYTES);
    expect(sentSizes.length).toBe(Math.ceil(file.length / GATHER_BYTES));
    expect(sentSizes.every((bytes) => bytes === GATHER_BYTES)).toBe(true);
    expect(calls.map((c) => c.name)).toEqual(['warm', 'scanArrivingSource']); // the scan was taken: the stored file was not read
    expect(outcome).toEqual(await readStored(run));
  });

  it("takes pieces from the local store's put as the upload route does: each once it is in the file, moved (but the last, shorter), and the file intact", async () => {
    const run = runFor();
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const inspector = new SourceInspector(blobs, CONFIG, cpu);
    const follower = inspector.sourceArriving(run, SMALL.length)!;
    const shown: Buffer[] = [];
    async function* socketReads() {
      for (let at = 0; at < SMALL.length; at += 64 * 1024) {
        yield Buffer.from(SMALL.subarray(at, at + 64 * 1024));
        await turn();
      }
    }
    const { size } = await blobs.put(run.source_key, Readable.from(socketReads()), {
      onChunkWritten: (piece) => {
        shown.push(piece);
        follower.bytes(piece);
      },
    });
    follower.arrived(size);
    expect(shown.length).toBe(Math.ceil(SMALL.length / (64 * 1024)));
    expect(shown.slice(0, -1).every((piece) => piece.byteLength === 0)).toBe(true); // every 64 KiB piece moved, none copied
    expect(shown.at(-1)!.byteLength).toBe(SMALL.length % (64 * 1024)); // the last, shorter, gathered (copied) and sent as the upload ended
    expect(Buffer.compare((await readWholeBlob(blobs, run.source_key))!, SMALL)).toBe(0);
    expect(await inspector.inspect(run)).toEqual(await readStored(run));
    expect(calls.map((c) => c.name)).toEqual(['warm', 'scanArrivingSource']); // the stored file was not read again
  });

  it('follows a file that falls behind: no more bytes are held for it, it reads the rest from the store', async () => {
    const run = runFor();
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu, 100_000);
    const reads: { start?: number }[] = [];
    const openRead = blobs.openRead.bind(blobs);
    jest.spyOn(blobs, 'openRead').mockImplementation((key, options) => {
      if (key === run.source_key) reads.push({ start: options?.start });
      return openRead(key, options);
    });
    // Sent without a pause: the scan has read nothing when the budget is spent.
    await upload(run, SMALL, scans.follow(run), { pieceBytes: 10_000, letScanRead: false });
    const scan = await scans.take(run, SMALL.length);
    jest.restoreAllMocks();
    expect(reads).toEqual([{ start: 110_000 }]);
    await blobs.delete(rowIndexKeyOf(run.source_key));
    expect(scan && (await parsedFromScan(blobs, run, scan, DEFAULT_TABLE_LIMITS))).toEqual(await readStored(run));
  });

  it('gives up when the upload ends with half a big file still to scan: two threads read the stored file', async () => {
    const run = runFor();
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const inspector = new SourceInspector(blobs, CONFIG, cpu);
    const { size } = await blobs.put(run.source_key, Readable.from([BIG]));
    const follower = inspector.sourceArriving(run, BIG.length)!;
    // The whole body shown and the upload ended before the scan could read any of it.
    for (let at = 0; at < BIG.length; at += 64 * 1024) follower.bytes(BIG.subarray(at, at + 64 * 1024));
    follower.arrived(size);
    const outcome = await inspector.inspect(run);
    expect(calls.map((c) => c.name)).toEqual(['warm', 'scanArrivingSource', 'scanSourceFirstPart', 'scanSourceLaterPart']);
    expect(outcome).toEqual(await readStored(run));
  });

  it('gives way when other file work waits for a thread once the scan has started, also while the body stalls', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu);
    (cpu as { waiting: number }).waiting = 1;
    const run = runFor();
    // The scan's "started" message, heard on the follower's end of its channel after the follower
    // heard it: awaited instead of a fixed pause, which a loaded machine could pass first.
    const heard: { started: Promise<unknown> | null } = { started: null };
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the port as `this`
    const on = MessagePort.prototype.on;
    const listening = jest.spyOn(MessagePort.prototype, 'on').mockImplementation(function (this: MessagePort, event, listener) {
      on.call(this, event, listener);
      if (event === 'message' && heard.started === null) heard.started = new Promise((resolve) => on.call(this, 'message', resolve));
      return this;
    });
    const follower = scans.follow(run)!;
    listening.mockRestore();
    expect(heard.started).not.toBeNull(); // else the wait below would not wait
    // Not before it has started: its own task may be what waits.
    follower.bytes(SMALL.subarray(0, 1000));
    expect(scans.followed(run)).toBe(true);
    await heard.started; // it starts and says so
    follower.bytes(SMALL.subarray(1000, 2000));
    expect(scans.followed(run)).toBe(false);
    await expect(scans.take(run, SMALL.length)).resolves.toBeNull();

    // A body that stalls is checked too.
    (cpu as { waiting: number }).waiting = 0;
    const stalled = runFor();
    const others = new ArrivingScans(cpu);
    others.follow(stalled)!.bytes(SMALL.subarray(0, 1000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(others.followed(stalled)).toBe(true);
    (cpu as { waiting: number }).waiting = 1;
    // Checked every 250 ms: waits for it (up to seconds on a loaded machine) instead of a fixed 600 ms.
    for (const deadline = Date.now() + 10_000; others.followed(stalled) && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(others.followed(stalled)).toBe(false);
  });

  it('stops the scan when the run is refused after its last byte, and follows the next upload', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu);
    const run = runFor();
    const follower = scans.follow(run)!;
    await upload(run, SMALL, follower);
    follower.lost();
    expect(scans.followed(run)).toBe(false);
    await expect(scans.take(run, SMALL.length)).resolves.toBeNull();
    const next = scans.follow(runFor());
    expect(next).not.toBeNull();
    next!.lost();
  });

  it('gives up at once when it falls behind early in a big upload (two threads will read it), freeing what it held', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu, 1024 * 1024);
    const run = runFor();
    const follower = scans.follow(run, BIG.length)!;
    for (let at = 0; at < 2 * 1024 * 1024; at += 64 * 1024) follower.bytes(BIG.subarray(at, at + 64 * 1024));
    expect(scans.followed(run)).toBe(false);
    // A body that declared no size is followed on: the rest is read from the store.
    const undeclared = runFor();
    const other = new ArrivingScans(cpu, 1024 * 1024);
    const follows = other.follow(undeclared)!;
    for (let at = 0; at < 2 * 1024 * 1024; at += 64 * 1024) follows.bytes(BIG.subarray(at, at + 64 * 1024));
    expect(other.followed(undeclared)).toBe(true);
    follows.lost();
  });

  it('follows one upload at a time, delimited files only, and keeps nothing of an upload that did not complete', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu);
    const first = runFor();
    const follower = scans.follow(first)!;
    expect(scans.follow(runFor())).toBeNull();
    expect(scans.follow(runFor('input.xlsx'))).toBeNull();
    follower.bytes(SMALL.subarray(0, 1000));
    follower.lost();
    expect(scans.followed(first)).toBe(false);
    await expect(scans.take(first, 1000)).resolves.toBeNull();
    // The lost scan's thread is let go: the next upload is followed.
    await turn();
    const next = scans.follow(runFor());
    expect(next).not.toBeNull();
    next!.lost(); // its scan ends: no upload here
  });

  it('takes nothing when the stored size is not what the scan read, and a scan is taken once', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu);
    const run = runFor();
    await upload(run, SMALL, scans.follow(run));
    await expect(scans.take(run, SMALL.length + 1)).resolves.toBeNull();

    const again = runFor();
    const others = new ArrivingScans(cpu); // the first scan may still be ending: one is followed at a time
    await upload(again, SMALL, others.follow(again));
    await expect(others.take(again, SMALL.length)).resolves.toMatchObject({ rows: 20_001 });
    await expect(others.take(again, SMALL.length)).resolves.toBeNull();
  });

  it('gives up when the body stored is not the bytes it was shown', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const scans = new ArrivingScans(cpu);
    const run = runFor();
    const follower = scans.follow(run)!;
    follower.bytes(SMALL.subarray(0, 5000));
    follower.arrived(SMALL.length);
    expect(scans.followed(run)).toBe(false);
  });
});
