import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLUSH_BEHIND_BYTES, TemporaryFile } from './temporary-file';

describe('a temporary file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'temporary-file-'));
  let proto: FileHandle;
  beforeAll(async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const chunk = Buffer.alloc(1024 * 1024, 'x');
  const writeMegabytes = async (file: TemporaryFile, n: number) => {
    for (let i = 0; i < n; i++) await file.write(chunk);
  };

  it('asks the disk for its bytes while it is written, one flush at a time, and fsyncs it at the end', async () => {
    const datasync = jest.spyOn(proto, 'datasync');
    const sync = jest.spyOn(proto, 'sync');
    const path = join(dir, 'durable');
    const file = await TemporaryFile.open(path, 'w', true);
    await writeMegabytes(file, (3 * FLUSH_BEHIND_BYTES) / chunk.length + 1);
    expect(datasync.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(datasync.mock.calls.length).toBeLessThanOrEqual(3);
    expect(sync).not.toHaveBeenCalled();
    await file.close();
    expect(sync).toHaveBeenCalledTimes(1);
    expect(statSync(path).size).toBe(3 * FLUSH_BEHIND_BYTES + chunk.length);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('neither flushes nor fsyncs a scratch file', async () => {
    const datasync = jest.spyOn(proto, 'datasync');
    const sync = jest.spyOn(proto, 'sync');
    const file = await TemporaryFile.open(join(dir, 'scratch'), 'w', false);
    await writeMegabytes(file, (2 * FLUSH_BEHIND_BYTES) / chunk.length + 1);
    await file.close();
    expect(datasync).not.toHaveBeenCalled();
    expect(sync).not.toHaveBeenCalled();
  });

  it('reports a flush that failed when it is closed, which the last fsync might not (and still closes it)', async () => {
    const failure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    jest.spyOn(proto, 'datasync').mockRejectedValue(failure);
    const sync = jest.spyOn(proto, 'sync');
    const file = await TemporaryFile.open(join(dir, 'failing'), 'w', true);
    await writeMegabytes(file, FLUSH_BEHIND_BYTES / chunk.length + 1);
    await expect(file.close()).rejects.toBe(failure);
    expect(sync).not.toHaveBeenCalled();
    expect(file.handle.fd).toBe(-1); // closed
  });

  it('extends a file it is opened to append to', async () => {
    const path = join(dir, 'extended');
    const first = await TemporaryFile.open(path, 'w', false);
    await first.write(Buffer.from('[1'));
    await first.close();
    const more = await TemporaryFile.open(path, 'a', true);
    await more.write(Buffer.from(',2]'));
    await more.close();
    expect(readFileSync(path, 'utf8')).toBe('[1,2]');
  });
});
