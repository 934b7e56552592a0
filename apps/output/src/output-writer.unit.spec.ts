import type { BlobStore, JoinedPiece } from '@app/blob-storage';
import type { CpuWork } from '@app/cpu-work';
import type { RunState } from '@app/domain';
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
      { name: 'writeOutputPart', key: 'runs/r1/output.csv.part-1', range: { fromRow: 1, toRow: 50_001 } },
      { name: 'writeOutputPart', key: 'runs/r1/output.csv.part-2', range: { fromRow: 50_002, toRow: null } },
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
});
