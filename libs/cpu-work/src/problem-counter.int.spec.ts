import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import type { RunState } from '@app/domain';
import { countMappingProblems } from '@app/run-source';
import { ProblemCounter } from './problem-counter';
import { ingestedRun, inProcessCpu } from './testing/in-process-cpu';

/** The review's count split over two threads (the tasks run here, as between threads: inProcessCpu). */
const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true },
  age: { description: 'a', data_type: 'integer', is_required: false },
};
const MAPPING = { email: 'Mail', age: 'Age' };
const ROWS = 60_001;

function fileOf(): string {
  const lines = ['Mail,Age'];
  for (let i = 1; i <= ROWS; i++) lines.push(`${i % 17 === 0 ? '' : `p${i}@example.org`},${i % 13 === 0 ? 'x' : i % 90}`);
  return lines.join('\n') + '\n';
}

describe('ProblemCounter', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  let run: RunState;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'problem-counter-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    run = await ingestedRun(blobs, 'runs/c1/source', fileOf(), { fields: FIELDS });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts a big file in two halves at once and joins them into the count of the whole file, its progress both halves together', async () => {
    const { cpu, calls } = inProcessCpu(blobs, 2);
    const heard: number[] = [];
    const tally = (await new ProblemCounter(blobs, cpu).count(run, MAPPING, null, { onProgress: (rows) => void heard.push(rows) }))!;
    expect(calls.map((c) => [c.name, c.input.range])).toEqual([
      ['countMappingProblems', { fromRow: 1, toRow: 30_001, end: expect.any(BigUint64Array) }],
      ['countMappingProblems', { fromRow: 30_002, toRow: null, end: expect.any(BigUint64Array) }],
    ]);
    // Each half stops in its thread when the count is superseded or the other half fails (task-stop.ts): its thread carries on.
    expect(calls.map((c) => c.stop)).toEqual([
      { signal: true, stopsItself: true },
      { signal: true, stopsItself: true },
    ]);
    expect(tally).toEqual(await countMappingProblems(blobs, run, MAPPING));
    expect(tally.rows_checked).toBe(ROWS);
    expect(tally.problems_by_field_and_kind.email.required).toBe(Math.floor(ROWS / 17));
    expect(heard.at(-1)).toBe(ROWS);
    expect(heard).toEqual([...heard].sort((a, b) => a - b));
  });

  it('answers null when the count is aborted (a newer mapping came)', async () => {
    const { cpu } = inProcessCpu(blobs, 2);
    const signal = AbortSignal.abort();
    expect(await new ProblemCounter(blobs, cpu).count(run, MAPPING, null, { signal })).toBeNull();
  });

  it('counts in one task without a second thread, asking to be stopped in its thread when superseded', async () => {
    const { cpu, calls } = inProcessCpu(blobs, 1);
    const signal = new AbortController().signal;
    const tally = (await new ProblemCounter(blobs, cpu).count(run, MAPPING, null, { signal }))!;
    expect(calls.map((c) => [c.input.range, c.stop])).toEqual([[undefined, { signal: true, stopsItself: true }]]);
    expect(tally.rows_checked).toBe(ROWS);
  });
});
