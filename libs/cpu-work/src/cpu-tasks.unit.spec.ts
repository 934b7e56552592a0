import { writeOutputPart } from '@app/run-source';
import { CPU_TASKS } from './cpu-tasks';

jest.mock('@app/run-source', () => ({ ...jest.requireActual('@app/run-source'), writeOutputPart: jest.fn(async () => ({ rows: 0 })) }));

describe('CPU_TASKS.writeOutputPart', () => {
  it("hands the write the thread's stop signal with its limit and duplicates (a part told to stop stops: task-stop.ts)", async () => {
    const stop = new AbortController();
    const input = { run: { id: 'r1' }, key: 'k.part-1', range: { fromRow: 1, toRow: 10 }, duplicates: null, maxBytes: 1234 } as never;
    const progress = () => undefined;
    await CPU_TASKS.writeOutputPart(input, { blobs: {} as never, config: {} as never }, progress, stop.signal);
    expect(writeOutputPart).toHaveBeenCalledWith({}, { id: 'r1' }, 'k.part-1', { fromRow: 1, toRow: 10 }, progress, {
      ...(input as object),
      signal: stop.signal,
    });
    const options = (writeOutputPart as jest.Mock).mock.calls[0][5];
    expect(options).toMatchObject({ maxBytes: 1234, duplicates: null });
  });
});
