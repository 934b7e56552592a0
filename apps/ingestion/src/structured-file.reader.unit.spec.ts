import { Logger } from '@nestjs/common';
import type { SourceInspector } from '@app/cpu-work';
import type { RunState } from '@app/domain';
import { StructuredFileReader } from './structured-file.reader';

describe('StructuredFileReader: a read that fails', () => {
  const run = { id: 'r1' } as RunState;
  const readerFailingWith = (err: Error) => new StructuredFileReader({ inspect: () => Promise.reject(err) } as unknown as SourceInspector);

  beforeEach(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('ends with transformation_out_of_memory when its file-work thread reached its heap limit (the file, not the store)', async () => {
    const oom = Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), {
      code: 'ERR_WORKER_OUT_OF_MEMORY',
    });
    await expect(readerFailingWith(oom).read(run, async () => undefined)).resolves.toEqual({
      failed: expect.objectContaining({ code: 'transformation_out_of_memory', type: 'limit', stage: 'ingestion', retryable: false }),
    });
  });

  it('ends with transformation_storage_failed when the stored file cannot be read', async () => {
    await expect(readerFailingWith(new Error('EIO: i/o error')).read(run, async () => undefined)).resolves.toEqual({
      failed: expect.objectContaining({ code: 'transformation_storage_failed', stage: 'ingestion', retryable: true }),
    });
  });
});
