import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LocalBlobStore, UrlSigner, readWholeBlob } from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import { rowIndexKeyOf, type RunState } from '@app/domain';
import { inspectStructuredFile, planSourceSplit } from '@app/run-source';
import { DEFAULT_TABLE_LIMITS, openDelimited, parseRowIndex } from '@app/tabular';
import { SourceInspector } from './source-inspector';
import { inProcessCpu } from './testing/in-process-cpu';

/*
 * Ingestion's read of a big delimited file in two parts on two threads (the tasks run here, as
 * between threads: inProcessCpu): the same outcome as one read, a row index that reads on
 * correctly across the split, and one read from the top whenever the parts cannot be joined.
 */

const CONFIG = { tableLimits: DEFAULT_TABLE_LIMITS } as AppConfig;

const ROWS = 500_000;

/** About 18 MB of CRLF rows (over the 16 MiB from which a file is split), a quoted line break every 7th. */
const BODY = Array.from(
  { length: ROWS },
  (_, n) => `${n + 1},${(n + 1) % 7 === 0 ? `"two\r\nlines ${n + 1}"` : `plain ${n + 1}`},Zürich 日本\r\n`,
).join('');
const bigFile = (header = 'id,text,place'): string => `${header}\r\n${BODY}`;

describe('SourceInspector', () => {
  let dir: string;
  let blobs: LocalBlobStore;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'source-inspector-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function stored(key: string, text: string): Promise<RunState> {
    await blobs.put(key, Readable.from([Buffer.from(text)]));
    return { id: key, filename: 'input.csv', source_key: key, rows_key: key } as unknown as RunState;
  }

  /** The outcome of one read from the top, the row index it stored removed first. */
  async function readWhole(run: RunState) {
    await blobs.delete(rowIndexKeyOf(run.source_key));
    return inspectStructuredFile(blobs, run, DEFAULT_TABLE_LIMITS, () => undefined);
  }

  async function rowsFrom(run: RunState, byte: number, linebreak: string, count: number): Promise<string[][]> {
    const table = await openDelimited(await blobs.openRead(run.source_key, { start: byte }), ',', {
      alreadyIngested: true,
      encoding: 'utf-8',
      resumeWithLinebreak: linebreak,
    });
    const rows: string[][] = [];
    for await (const batch of table.batches) {
      rows.push(...batch);
      if (rows.length >= count) break;
    }
    return rows.slice(0, count);
  }

  it('reads a big file in two parts at once: the outcome of one read, a row index that reads on across the split, progress both parts together', async () => {
    const run = await stored('runs/split/source', bigFile());
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const heard: number[] = [];
    const outcome = await new SourceInspector(blobs, CONFIG, cpu).inspect(run, { onProgress: (rows) => void heard.push(rows) });
    expect(calls.map((c) => c.name)).toEqual(['scanSourceFirstPart', 'scanSourceLaterPart']);
    const index = parseRowIndex((await readWholeBlob(blobs, rowIndexKeyOf(run.source_key)))!.toString())!;
    expect(outcome).toEqual(await readWhole(run));
    expect(heard).toEqual([...heard].sort((a, b) => a - b));
    expect(heard.at(-1)).toBe(ROWS + 1);
    expect(index.rows).toBe(ROWS + 1);
    // Every entry names the row that starts there: its first cell is the row's number (the header is row 0).
    expect(index.entries.length).toBeGreaterThan(100);
    const split = (await planSourceSplit(blobs, run))!;
    const atSplit = index.entries.find(([, byte]) => byte === split.byte);
    expect(atSplit).toBeDefined();
    for (const [before, byte] of [index.entries[3], atSplit!, index.entries[index.entries.indexOf(atSplit!) + 1], index.entries.at(-1)!]) {
      const rows = await rowsFrom(run, byte, index.linebreak, 3);
      expect(rows.map((r) => r[0])).toEqual([String(before), String(before + 1), String(before + 2)]);
    }
  });

  it('reads the file from the top when the line feed after the middle is inside a quoted field', async () => {
    // The header grows until the first line feed past the middle falls between the quotes of a "two\r\nlines" cell.
    const body = Buffer.from(BODY);
    let header = 'id,text,place';
    for (;;) {
      const top = header.length + 2;
      const lf = body.indexOf(10, Math.floor((top + body.length) / 2) - top);
      if (body.subarray(lf - 4, lf + 1).toString() === 'two\r\n') break;
      header += ' ';
    }
    const text = bigFile(header);
    const run = await stored('runs/quoted-middle/source', text);
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const outcome = await new SourceInspector(blobs, CONFIG, cpu).inspect(run);
    expect(calls.map((c) => c.name)).toEqual(['scanSourceFirstPart', 'scanSourceLaterPart', 'inspectStructuredFile']);
    expect(outcome).toEqual(await readWhole(run));
  });

  it('reads the file from the top when its later part is not plain (a stray CR), and the whole read decides', async () => {
    const text = bigFile();
    const run = await stored(
      'runs/stray-cr/source',
      text.slice(0, text.length - 2000) + 'x,\rstray,y\r\n' + text.slice(text.length - 2000),
    );
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const outcome = await new SourceInspector(blobs, CONFIG, cpu).inspect(run);
    expect(calls.map((c) => c.name).at(-1)).toBe('inspectStructuredFile');
    expect(outcome).toEqual(await readWhole(run));
  });

  it('reads a big file whose line break is a lone CR from the top (no line feed to split after)', async () => {
    const run = await stored('runs/cr-only/source', bigFile().replace(/\r\n/g, '\r'));
    const { cpu, calls } = inProcessCpu(blobs, 2);
    // Both parts find there is no split: neither stops the other (a stopped task's thread is ended).
    const signals: AbortSignal[] = [];
    const runTask = cpu.run.bind(cpu);
    cpu.run = (name, input, options = {}) => {
      if (options.signal) signals.push(options.signal);
      return runTask(name, input, options);
    };
    const outcome = await new SourceInspector(blobs, CONFIG, cpu).inspect(run);
    expect(signals.length).toBe(2);
    expect(signals.some((signal) => signal.aborted)).toBe(false);
    expect(await planSourceSplit(blobs, run)).toBeNull();
    expect(calls.map((c) => c.name)).toEqual(['scanSourceFirstPart', 'scanSourceLaterPart', 'inspectStructuredFile']);
    expect(outcome).toEqual(await readWhole(run));
    expect('parsed' in outcome && outcome.parsed.total_rows).toBe(ROWS);
  });

  it("throws a storage error met in the middle of the file, on either path (it is not the file's fault)", async () => {
    const run = await stored('runs/storage-error/source', bigFile());
    // The store's stream fails after 3 MiB, as a dropped connection to a bucket would.
    const failing = Object.create(blobs) as LocalBlobStore;
    failing.openRead = async (key, options) => {
      const input = await blobs.openRead(key, options);
      let seen = 0;
      return Readable.from(
        (async function* () {
          for await (const chunk of input as AsyncIterable<Buffer>) {
            seen += chunk.length;
            if (seen > 3 * 1024 * 1024) throw new Error('read ECONNRESET');
            yield chunk;
          }
        })(),
      );
    };
    await expect(inspectStructuredFile(failing, run, DEFAULT_TABLE_LIMITS, () => undefined)).rejects.toThrow('ECONNRESET');
    await expect(new SourceInspector(failing, CONFIG, inProcessCpu(failing, 2).cpu).inspect(run)).rejects.toThrow('ECONNRESET');
  });

  it('starts, as a source begins to arrive, the threads its read will take: two for a delimited file that may be split', () => {
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const inspector = new SourceInspector(blobs, CONFIG, cpu);
    const followed: string[] = [];
    const arriving = (filename: string, size: number) => {
      calls.length = 0;
      const follower = inspector.sourceArriving({ id: 'r', filename } as unknown as RunState, size);
      if (follower) followed.push(filename);
      follower?.lost(); // no upload here: the scan that follows it stops at once
      return calls.filter((c) => c.name === 'warm');
    };
    const MiB = 1024 * 1024;
    expect(arriving('big.csv', 16 * MiB)).toEqual([{ name: 'warm', input: { threads: 2 } }]);
    expect(arriving('big.tsv', 100 * MiB)).toEqual([{ name: 'warm', input: { threads: 2 } }]);
    // No size declared (a body sent in chunks): it may be big.
    expect(arriving('sent-in-chunks.csv', Infinity)).toEqual([{ name: 'warm', input: { threads: 2 } }]);
    expect(arriving('small.csv', 16 * MiB - 1)).toEqual([{ name: 'warm', input: { threads: 1 } }]);
    // A workbook is read on one thread, however big.
    expect(arriving('big.xlsx', 100 * MiB)).toEqual([{ name: 'warm', input: { threads: 1 } }]);
    // A delimited file is also scanned as it arrives (arriving-scans.int.spec.ts).
    expect(followed).toEqual(['big.csv', 'big.tsv', 'sent-in-chunks.csv', 'small.csv']);
  });

  describe('a big file read in a code page', () => {
    // ASCII for its first 64 KiB and more, then a windows-1252 "Ærøskøbing" every 1,000th row: over 16 MiB, so it splits.
    const cp1252 = () =>
      Buffer.from(
        'id,name,city\r\n' +
          Array.from(
            { length: 700_000 },
            (_, n) => `${n + 1},name ${n + 1},${n >= 7_000 && n % 1_000 === 0 ? 'Ærøskøbing' : 'Odense'}\r\n`,
          ).join(''),
        'latin1',
      );
    const storedBytes = async (key: string, bytes: Buffer): Promise<RunState> => {
      await blobs.put(key, Readable.from([bytes]));
      return { id: key, filename: 'input.csv', source_key: key, rows_key: key } as unknown as RunState;
    };
    const readWholeIn = async (run: RunState, encoding: string) => {
      await blobs.delete(rowIndexKeyOf(run.source_key));
      return inspectStructuredFile(blobs, run, DEFAULT_TABLE_LIMITS, () => undefined, { encoding });
    };

    it('is read again in two parts in the code page past its ASCII head, as one read in it would', async () => {
      const run = await storedBytes('runs/past-ascii/source', cp1252());
      const { cpu, calls } = inProcessCpu(blobs, 2);
      const outcome = await new SourceInspector(blobs, CONFIG, cpu).inspect(run);
      expect(calls.map((c) => c.name).slice(-3)).toEqual(['sourceEncodingPastAscii', 'scanSourceFirstPart', 'scanSourceLaterPart']);
      expect('parsed' in outcome && outcome.parsed.encoding).toBe('windows-1252');
      expect(outcome).toEqual(await readWholeIn(run, 'windows-1252'));
    });

    it("is read again in two parts in the reviewer's chosen encoding", async () => {
      const run = await storedBytes('runs/chosen-encoding/source', cp1252());
      const { cpu, calls } = inProcessCpu(blobs, 2);
      const outcome = await new SourceInspector(blobs, CONFIG, cpu).readAgain(run, { encoding: 'iso-8859-2' });
      expect(calls.map((c) => c.name)).toEqual(['scanSourceFirstPart', 'scanSourceLaterPart']);
      expect('parsed' in outcome && outcome.parsed.encoding).toBe('iso-8859-2');
      expect(outcome).toEqual(await readWholeIn(run, 'iso-8859-2'));
    });
  });

  it('reads a small file, or any file without a second thread, in one task', async () => {
    const small = await stored('runs/small/source', 'a,b\r\n1,2\r\n');
    const two = inProcessCpu(blobs, 2);
    expect(await new SourceInspector(blobs, CONFIG, two.cpu).inspect(small)).toEqual(await readWhole(small));
    expect(two.calls.map((c) => c.name)).toEqual(['inspectStructuredFile']);
    const one = inProcessCpu(blobs, 1);
    await new SourceInspector(blobs, CONFIG, one.cpu).inspect(small);
    expect(one.calls.map((c) => c.name)).toEqual(['inspectStructuredFile']);
  });
});
