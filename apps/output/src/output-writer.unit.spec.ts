import type { BlobStore, JoinedPiece } from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import { STOPS_ITSELF, type CpuTaskName, type CpuTaskOptions, type CpuWork } from '@app/cpu-work';
import type { RunState } from '@app/domain';
import { claimThrough, type RowRange } from '@app/run-source';
import { outputByteLimit } from './output-limit';
import { OutputWriter } from './output-writer';

/**
 * When an output is written in halves: two threads really running (not the configured count),
 * a delimited file of 50,000 rows or more, and a row index to start the second half at.
 */
function setUp(
  threads: number,
  stored: string[],
  write: (input: { key: string; range?: RowRange }) => Promise<unknown> = async () => ({ rows: 10, rowsWithProblems: 2, rowsExcluded: 1 }),
) {
  const calls: Array<{ name: string; key: string; range?: RowRange }> = [];
  const limits: Array<number | undefined> = [];
  const stops: Array<{ stopsItself: boolean; signal: boolean }> = [];
  const joined: Array<{ key: string; pieces: JoinedPiece[] }> = [];
  const deleted: string[] = [];
  const cpu = {
    threads,
    run: async (name: string, input: { key: string; range?: RowRange; maxBytes?: number }, options: CpuTaskOptions) => {
      calls.push({ name, key: input.key, range: input.range });
      stops.push({ stopsItself: STOPS_ITSELF.has(name as CpuTaskName), signal: options?.signal !== undefined });
      limits.push(input.maxBytes);
      stored.push(input.key);
      return write(input);
    },
  } as unknown as CpuWork;
  const blobs = {
    stat: async (key: string) => (stored.includes(key) ? { size: 100 } : null),
    putJoined: async (key: string, pieces: JoinedPiece[], options: { maxBytes?: number }) => {
      joined.push({ key, pieces });
      limits.push(options.maxBytes);
      return { size: 0 };
    },
    delete: async (key: string) => void deleted.push(key),
  } as unknown as BlobStore;
  const config = {
    maxUploadBytes: 5_000,
    maxOutputRatio: 64,
    tableLimits: { maxUnpackedBytes: 1e9, maxCompressionRatio: 200 },
  } as AppConfig;
  return { writer: new OutputWriter(blobs, cpu, config), calls, joined, deleted, limits, config, stops };
}

const run = (rows: number, format = 'delimited') =>
  ({
    id: 'r1',
    rows_key: 'runs/r1/source',
    source_format: format,
    total_rows: rows,
    output_format: 'csv',
    schema: { fields: { email: {} } },
    mapping_rule: { email: 'E-mail' },
  }) as unknown as RunState;

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

  it("holds each part and the join to the output's limit (output-limit.ts), and one thread's whole output too", async () => {
    // The source is stored (its size: 100 bytes) for the halves, and not found for the whole output.
    const halves = setUp(2, ['runs/r1/source', 'runs/r1/source.row-index']);
    await halves.writer.write(run(100_001), 'runs/r1/output.csv', () => undefined, null);
    const limit = outputByteLimit(run(100_001), 100, halves.config);
    expect(limit).toBeGreaterThan(5_000);
    expect(halves.limits).toEqual([limit, limit, limit]);
    const whole = setUp(1, []);
    await whole.writer.write(run(1_000), 'runs/r1/output.csv', () => undefined, null);
    expect(whole.limits).toEqual([outputByteLimit(run(1_000), null, whole.config)]);
  });

  it.each([
    ['no pool (the tasks run on the event loop)', 0, run(100_001), true],
    ['one thread', 1, run(100_001), true],
    ['fewer than 50,000 rows', 2, run(49_999), true],
    ['no row index', 2, run(100_001), false],
    ['a workbook', 2, run(100_001, 'xlsx'), true],
    ['more rows than a shared range end holds (2^32 - 1)', 2, run(2 ** 32 - 1), true],
  ] as const)('writes the whole output on one thread with %s', async (_, threads, state, indexed) => {
    const { writer, calls, joined } = setUp(threads, indexed ? ['runs/r1/source.row-index'] : []);
    await writer.write(state, 'runs/r1/output.csv', () => undefined, null);
    expect(calls).toEqual([{ name: 'writeRunOutput', key: 'runs/r1/output.csv', range: undefined }]);
    expect(joined).toEqual([]);
  });

  it('joins the parts in row order when a free thread took the last rows of the other half', async () => {
    // The first half claims 1,000 rows every 2 ms, the second every 20 ms, so the first half's
    // thread takes the second's last rows as a third part, written after it in the output.
    const stored = ['runs/r1/source.row-index'];
    const { writer, calls, joined, deleted } = setUp(2, stored, async (input) => {
      const { fromRow, toRow, end } = input.range!;
      let rows = 0;
      for (let next = fromRow; next <= (toRow ?? 100_000);) {
        const through = claimThrough(end!, Math.min(next + 999, toRow ?? 100_000));
        if (through < next) break;
        rows += through - next + 1;
        next = through + 1;
        await new Promise((r) => setTimeout(r, fromRow === 50_001 ? 20 : 2));
      }
      return { rows, rowsWithProblems: 0, rowsExcluded: 0 };
    });
    const written = await writer.write(run(100_000), 'runs/r1/output.csv', () => undefined, null);
    expect(written.rows).toBe(100_000);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls[2].range!.fromRow).toBeGreaterThan(50_001);
    // Every part, in the order of its rows (a later part can hold earlier rows: part-3 was cut from part-2's end).
    const firstRowOf = new Map(calls.map((c) => [c.key, c.range!.fromRow]));
    const order = joined[0].pieces.map((p) => firstRowOf.get((p as { key: string }).key)!);
    expect(order).toHaveLength(calls.length);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBe(1);
    expect(deleted).toHaveLength(calls.length);
  });

  it('removes every part written when one fails, and throws the failure', async () => {
    const { writer, deleted, stops } = setUp(2, ['runs/r1/source.row-index'], async (input) => {
      if (input.key.endsWith('part-2')) throw new Error('disk full');
      return { rows: 1, rowsWithProblems: 0, rowsExcluded: 0 };
    });
    await expect(writer.write(run(100_001), 'runs/r1/output.csv', () => undefined, null)).rejects.toThrow('disk full');
    expect(deleted.sort()).toEqual(['runs/r1/output.csv.part-1', 'runs/r1/output.csv.part-2']);
    // Each part is stopped in its thread when another fails (task-stop.ts): its temporary file is removed, its thread kept.
    expect(stops).toEqual([
      { stopsItself: true, signal: true },
      { stopsItself: true, signal: true },
    ]);
  });
});
