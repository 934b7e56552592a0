import type { BlobStore, JoinedPiece } from '@app/blob-storage';
import type { CpuWork } from '@app/cpu-work';
import type { RunState } from '@app/domain';
import { claimThrough, type RowRange } from '@app/run-source';
import { OutputWriter } from './output-writer';

/**
 * When an output is written in halves: two threads really running (not the configured count),
 * a delimited file of 50,000 rows or more, and a row index to start the second half at.
 */
function setUp(threads: number, stored: string[]) {
  const calls: Array<{ name: string; key: string; range?: unknown }> = [];
  const joined: Array<{ key: string; pieces: JoinedPiece[] }> = [];
  const deleted: string[] = [];
  const cpu = {
    threads,
    run: async (name: string, input: { key: string; range?: unknown }) => {
      calls.push({ name, key: input.key, range: input.range });
      stored.push(input.key);
      return { rows: 10, rowsWithProblems: 2, rowsExcluded: 1 };
    },
  } as unknown as CpuWork;
  const blobs = {
    stat: async (key: string) => (stored.includes(key) ? { size: 100 } : null),
    putJoined: async (key: string, pieces: JoinedPiece[]) => {
      joined.push({ key, pieces });
      return { size: 0 };
    },
    delete: async (key: string) => void deleted.push(key),
  } as unknown as BlobStore;
  return { writer: new OutputWriter(blobs, cpu), calls, joined, deleted };
}

const run = (rows: number, format = 'delimited') =>
  ({ id: 'r1', rows_key: 'runs/r1/source', source_format: format, total_rows: rows, output_format: 'csv' }) as unknown as RunState;

describe('OutputWriter', () => {
  it('writes a big delimited file with a row index in two halves on two threads, joins them in order and removes the parts', async () => {
    const { writer, calls, joined, deleted } = setUp(2, ['runs/r1/source.row-index']);
    const written = await writer.write(run(100_001), 'runs/r1/output.csv', () => undefined, null);
    expect(calls).toEqual([
      { name: 'writeOutputPart', key: 'runs/r1/output.csv.part-1', range: { fromRow: 1, toRow: 50_001, end: expect.any(BigUint64Array) } },
      {
        name: 'writeOutputPart',
        key: 'runs/r1/output.csv.part-2',
        range: { fromRow: 50_002, toRow: null, end: expect.any(BigUint64Array) },
      },
    ]);
    expect(joined).toEqual([
      {
        key: 'runs/r1/output.csv',
        pieces: [
          { key: 'runs/r1/output.csv.part-1', take: true },
          { key: 'runs/r1/output.csv.part-2', take: true },
        ],
      },
    ]);
    expect(written).toEqual({ rows: 20, rowsWithProblems: 4, rowsExcluded: 2 });
    expect(deleted.sort()).toEqual(['runs/r1/output.csv.part-1', 'runs/r1/output.csv.part-2']);
  });

  it.each([
    ['no pool (the tasks run on the event loop)', 0, run(100_001), true],
    ['one thread', 1, run(100_001), true],
    ['fewer than 50,000 rows', 2, run(49_999), true],
    ['no row index', 2, run(100_001), false],
    ['a workbook', 2, run(100_001, 'xlsx'), true],
  ] as const)('writes the whole output on one thread with %s', async (_, threads, state, indexed) => {
    const { writer, calls, joined } = setUp(threads, indexed ? ['runs/r1/source.row-index'] : []);
    await writer.write(state, 'runs/r1/output.csv', () => undefined, null);
    expect(calls).toEqual([{ name: 'writeRunOutput', key: 'runs/r1/output.csv', range: undefined }]);
    expect(joined).toEqual([]);
  });

  it('gives a free thread the second half of what a slower part has left, until the rest is not worth a new part', async () => {
    // Two "threads" on the event loop: the second half's writer takes 20 ms per batch of 1,000
    // rows, any other part 2 ms. Each records the rows it wrote, claiming each batch
    // first as the real reader does (row-range.ts), so every cut lands after what was claimed.
    const total = 100_000;
    const written = new Map<string, number[]>();
    const joined: string[][] = [];
    const cpu = {
      threads: 2,
      run: async (_name: string, input: { key: string; range: RowRange }, options: { onProgress: (n: number) => unknown }) => {
        const { fromRow, toRow, end } = input.range;
        const rows: number[] = [];
        written.set(input.key, rows);
        for (let next = fromRow; next <= (toRow ?? total);) {
          const through = claimThrough(end!, Math.min(next + 999, toRow ?? total));
          if (through < next) break;
          for (let row = next; row <= through; row++) rows.push(row);
          options.onProgress(rows.length);
          next = through + 1;
          await new Promise((r) => setTimeout(r, input.key.endsWith('part-2') ? 20 : 2));
        }
        return { rows: rows.length, rowsWithProblems: 0, rowsExcluded: 0 };
      },
    } as unknown as CpuWork;
    const blobs = {
      stat: async () => ({ size: 100 }),
      putJoined: async (_key: string, pieces: JoinedPiece[]) => void joined.push(pieces.map((p) => (p as { key: string }).key)),
      delete: async () => undefined,
    } as unknown as BlobStore;
    const progress: number[] = [];
    const result = await new OutputWriter(blobs, cpu).write(run(total), 'runs/r1/output.csv', (n) => progress.push(n), null);

    expect(result.rows).toBe(total);
    // More parts than threads, joined in the order of their rows: together, every row once, in order.
    expect(written.size).toBeGreaterThan(2);
    expect(joined).toHaveLength(1);
    expect(joined[0].flatMap((key) => written.get(key)!)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const slow = written.get('runs/r1/output.csv.part-2')!;
    expect(slow.length).toBeLessThan(total / 2);
    expect(progress.at(-1)).toBe(total);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('stops the other parts when one fails, waits for them, removes every part and throws the failure', async () => {
    const deleted: string[] = [];
    let aborted = false;
    const cpu = {
      threads: 2,
      run: (_name: string, input: { key: string }, options: { signal: AbortSignal }) =>
        input.key.endsWith('part-2')
          ? Promise.reject(new Error('disk full'))
          : new Promise((_, reject) =>
              options.signal.addEventListener('abort', () => {
                aborted = true;
                setTimeout(() => reject(new DOMException('aborted', 'AbortError')), 20);
              }),
            ),
    } as unknown as CpuWork;
    const blobs = {
      stat: async () => ({ size: 100 }),
      putJoined: async () => ({ size: 0 }),
      delete: async (key: string) => void deleted.push(key),
    } as unknown as BlobStore;
    await expect(new OutputWriter(blobs, cpu).write(run(100_001), 'runs/r1/output.csv', () => undefined, null)).rejects.toThrow(
      'disk full',
    );
    expect(aborted).toBe(true);
    expect(deleted.sort()).toEqual(['runs/r1/output.csv.part-1', 'runs/r1/output.csv.part-2']);
  });
});
