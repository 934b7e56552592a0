import { BLOB_STORE, BlobTooLargeError } from '@app/blob-storage';
import { APP_CONFIG } from '@app/config';
import { HISTORY } from '@app/domain/testing/run-history.fixtures';
import { CpuWork, DuplicateRowsFinder } from '@app/cpu-work';
import { RunEventTestBed } from '../../../test/support/run-event-test-bed';
import { OutputHandlers } from './output.handlers';
import { OutputWriter } from './output-writer';

/** Stands in for the worker thread: what writeRunOutput would report, or its failure. */
class FakeCpuWork {
  threads = 1;
  outcome: { rows: number; rowsWithProblems: number } | Error = { rows: 2, rowsWithProblems: 1 };
  calls: Array<{ name: string; key: string }> = [];
  async run(name: string, input: { key: string }) {
    this.calls.push({ name, key: input.key });
    if (this.outcome instanceof Error) throw this.outcome;
    return this.outcome;
  }
}

describe('OutputHandlers (given / when / then)', () => {
  let bed: RunEventTestBed;
  let cpu: FakeCpuWork;
  beforeEach(async () => {
    cpu = new FakeCpuWork();
    bed = await RunEventTestBed.create({
      controllers: [OutputHandlers],
      providers: [
        {
          provide: APP_CONFIG,
          useValue: {
            outputRetentionSeconds: 86400,
            cpuWork: { threads: 1 },
            maxUploadBytes: 1_000_000,
            maxOutputRatio: 64,
            tableLimits: { maxUnpackedBytes: 1e9, maxCompressionRatio: 200 },
          },
        },
        { provide: CpuWork, useValue: cpu },
        // The source's size is not known here: the output's limit is then the largest upload's.
        { provide: BLOB_STORE, useValue: { stat: async () => null } },
        DuplicateRowsFinder,
        OutputWriter,
      ],
    });
  });

  it('given an approved run, when ReviewApproved arrives, then the output starts, is written, and is recorded with its retention', async () => {
    const stream = await bed.given('r1', HISTORY.approved);
    await bed.when('output', stream[4]);
    const decided = await bed.decidedAfter('r1', 4);
    expect(cpu.calls).toEqual([{ name: 'writeRunOutput', key: 'runs/r1/output.json' }]);
    expect(decided).toEqual([
      { type: 'OutputStarted', data: { started_at: expect.any(String) } },
      {
        type: 'OutputProduced',
        data: {
          output_key: 'runs/r1/output.json',
          output_format: 'json',
          rows_written: 2,
          rows_with_problems: 1,
          file_retention_until: expect.any(String),
          completed_at: expect.any(String),
        },
      },
    ]);
    const produced = decided[1].data as { file_retention_until: string; completed_at: string };
    expect(Date.parse(produced.file_retention_until) - Date.parse(produced.completed_at)).toBe(86400 * 1000);
  });

  it('a write that fails fails the run with transformation_storage_failed', async () => {
    cpu.outcome = new Error('disk full');
    const stream = await bed.given('r1', HISTORY.approved);
    await bed.when('output', stream[4]);
    const decided = await bed.decidedAfter('r1', 4);
    expect(decided.map((e) => e.type)).toEqual(['OutputStarted', 'RunFailed']);
    expect(decided[1].data).toMatchObject({ error: { code: 'transformation_storage_failed', stage: 'final_processing', retryable: true } });
  });

  it('an output whose file-work thread ran out of heap fails the run with transformation_out_of_memory, not a storage failure', async () => {
    // Node's error when it ends a thread at its heap's limit, as piscina hands it on.
    cpu.outcome = Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), {
      code: 'ERR_WORKER_OUT_OF_MEMORY',
    });
    const stream = await bed.given('r1', HISTORY.approved);
    await bed.when('output', stream[4]);
    const decided = await bed.decidedAfter('r1', 4);
    expect(decided.map((e) => e.type)).toEqual(['OutputStarted', 'RunFailed']);
    expect(decided[1].data).toMatchObject({
      error: { code: 'transformation_out_of_memory', type: 'limit', stage: 'final_processing', retryable: false },
    });
  });

  it('an output past its limit fails the run with output_too_large, not to be retried, naming the limit', async () => {
    cpu.outcome = new BlobTooLargeError(1_000_000);
    const stream = await bed.given('r1', HISTORY.approved);
    await bed.when('output', stream[4]);
    const decided = await bed.decidedAfter('r1', 4);
    expect(decided.map((e) => e.type)).toEqual(['OutputStarted', 'RunFailed']);
    expect(decided[1].data).toMatchObject({
      error: {
        code: 'output_too_large',
        type: 'limit',
        stage: 'final_processing',
        retryable: false,
        message: expect.stringContaining('larger than the 1,000,000 bytes allowed for this file'),
        context: ['max 1000000 bytes'],
      },
    });
  });

  it('an output interrupted mid-way (OutputStarted, no OutputProduced) is written again; a finished one is not', async () => {
    const interrupted = await bed.given('r1', HISTORY.outputRunning);
    await bed.when('output', interrupted[4]);
    expect((await bed.decidedAfter('r1', 5)).map((e) => e.type)).toEqual(['OutputProduced']);
    const done = await bed.given('r2', HISTORY.completedFinal);
    await bed.when('output', done[4]);
    expect(await bed.decidedAfter('r2', 6)).toEqual([]);
  });
});
