import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import { duplicatesKeyOf, type DuplicateRows, type RunState } from '@app/domain';
import { findDuplicateRows } from '@app/run-source';
import { DuplicateRowsFinder } from './duplicate-rows-finder';
import { ingestedRun, inProcessCpu } from './testing/in-process-cpu';

/** The duplicates pass split over two threads (the tasks run here, as between threads: inProcessCpu). */
const FIELDS: Record<string, FieldDefinition> = {
  id: { description: 'i', data_type: 'integer', is_required: true, unique: true },
  code: { description: 'c', data_type: 'string', is_required: false, unique: true },
  name: { description: 'n', data_type: 'string', is_required: false },
};
const MAPPING = { id: 'Id', code: 'Code', name: 'Name' };
const ROWS = 60_000;

function fileOf(): string {
  const lines = ['Id,Code,Name'];
  for (let i = 1; i <= ROWS; i++) {
    // Ids repeat at 100 and 59,999; codes repeat across the halves (K7 in rows 7 and 45,000); names everywhere.
    const id = i === ROWS - 1 ? 100 : i;
    const code = i === 45_000 ? 'K7' : `K${i}`;
    lines.push(`${id},${code},"N ${i % 997}"`);
  }
  return lines.join('\n') + '\n';
}

const rowsOf = (bits: Uint8Array | undefined): number[] =>
  Array.from({ length: ROWS }, (_, i) => i + 1).filter((n) => bits !== undefined && (bits[n >> 3] & (1 << (n & 7))) !== 0);

describe('DuplicateRowsFinder', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  let run: RunState;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'duplicates-finder-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    run = await ingestedRun(blobs, 'runs/f1/source', fileOf(), { fields: FIELDS, unique_with: [['code', 'name']] });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => blobs.delete(duplicatesKeyOf(run.rows_key)));

  function finderOn(threads: number) {
    const { cpu, calls } = inProcessCpu(blobs, threads);
    return { finder: new DuplicateRowsFinder(blobs, cpu), calls };
  }

  it('reads the first pass in two halves at once, then joins them on a third task: the answer of one whole pass', async () => {
    const { finder, calls } = finderOn(2);
    const found = (await finder.find(run, MAPPING))!;
    expect(calls.map((c) => [c.name, c.input.range])).toEqual([
      ['duplicatesFirstPass', { fromRow: 1, toRow: ROWS / 2, end: expect.any(BigUint64Array) }],
      ['duplicatesFirstPass', { fromRow: ROWS / 2 + 1, toRow: null, end: expect.any(BigUint64Array) }],
      ['findDuplicateRows', undefined],
    ]);
    expect(calls[2].input.firstPasses).toHaveLength(2);
    // Each half is stopped in its thread if the other fails (task-stop.ts), so its thread carries on.
    expect(calls.slice(0, 2).map((c) => c.stop)).toEqual([
      { signal: true, stopsItself: true },
      { signal: true, stopsItself: true },
    ]);
    // The first passes' numbers moved to the task that went on: nothing of them is left with the sender.
    const sent = calls[2].input.firstPasses as Array<{ sets: Array<{ numbers: Float64Array | null }> }>;
    expect(sent[1].sets[0].numbers?.length).toBe(0);
    expect(rowsOf(found.id)).toEqual([100, ROWS - 1]);
    expect(rowsOf(found.code)).toEqual([7, 45_000]);
    expect(rowsOf(found.name)).toEqual([]);
    expect(found).toEqual(await findDuplicateRows(blobs, run, MAPPING));
  });

  it('uses the answer stored by an earlier pass for the same run and mapping without reading the file', async () => {
    const first = finderOn(2);
    const found: DuplicateRows = (await first.finder.find(run, MAPPING))!;
    const again = finderOn(2);
    expect(await again.finder.find(run, MAPPING)).toEqual(found);
    expect(again.calls).toEqual([]);
    // Another mapping is another answer: the file is read again.
    await again.finder.find(run, { ...MAPPING, name: 'Code' });
    expect(again.calls.map((c) => c.name)).toEqual(['duplicatesFirstPass', 'duplicatesFirstPass', 'findDuplicateRows']);
  });

  it.each([
    ['no pool', 0],
    ['one thread', 1],
  ])('reads the whole file in one task with %s', async (_, threads) => {
    const { finder, calls } = finderOn(threads);
    const found = (await finder.find(run, MAPPING))!;
    expect(calls.map((c) => c.name)).toEqual(['findDuplicateRows']);
    expect(rowsOf(found.code)).toEqual([7, 45_000]);
  });
});
