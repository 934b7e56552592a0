import { releasedUnstarted } from './released-unstarted';

describe('releasedUnstarted', () => {
  async function* counted(closed: string[]): AsyncGenerator<number> {
    try {
      yield 1;
      yield 2;
    } finally {
      closed.push('finally');
    }
  }

  it('runs release once when the rows are given up before their first batch', async () => {
    const closed: string[] = [];
    const rows = releasedUnstarted(counted(closed), () => closed.push('release'));
    await rows.return(undefined);
    await rows.return(undefined);
    expect(closed).toEqual(['release']);
    expect(await rows.next()).toEqual({ value: undefined, done: true });
  });

  it('leaves the closing to the generator once it started, however it ends', async () => {
    const closed: string[] = [];
    for await (const n of releasedUnstarted(counted(closed), () => closed.push('release'))) if (n === 1) break;
    const read: number[] = [];
    for await (const n of releasedUnstarted(counted(closed), () => closed.push('release'))) read.push(n);
    expect([closed, read]).toEqual([
      ['finally', 'finally'],
      [1, 2],
    ]);
  });

  it('a release that fails is told to the caller, and the rows are done all the same', async () => {
    const closed: string[] = [];
    const rows = releasedUnstarted(counted(closed), () => Promise.reject(new Error('EBADF')));
    await expect(rows.return(undefined)).rejects.toThrow('EBADF');
    expect(await rows.next()).toEqual({ value: undefined, done: true });
    expect(closed).toEqual([]);
  });
});
