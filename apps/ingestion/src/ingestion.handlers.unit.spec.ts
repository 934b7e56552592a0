import type { RunState } from '@app/domain';
import { HISTORY, parsed, rawParsed } from '@app/domain/testing/run-history.fixtures';
import { DIRECTORY } from '@app/directory';
import { RunEventTestBed } from '../../../test/support/run-event-test-bed';
import { IngestionHandlers } from './ingestion.handlers';
import { RecordSource } from './record-source';
import { StructuredFileReader } from './structured-file.reader';

describe('IngestionHandlers (given / when / then)', () => {
  let bed: RunEventTestBed;
  let quota: 'consumed' | 'already' | 'exhausted';
  const reads: string[] = [];
  beforeEach(async () => {
    quota = 'consumed';
    reads.length = 0;
    bed = await RunEventTestBed.create({
      controllers: [IngestionHandlers],
      providers: [
        { provide: DIRECTORY, useValue: { consumeReviewPreparation: async () => quota } },
        {
          provide: StructuredFileReader,
          useValue: {
            read: async (run: RunState) => (reads.push(`file ${run.source_key}`), { parsed: parsed.data }),
          },
        },
        {
          provide: RecordSource,
          useValue: {
            extractFromText: async (run: RunState) => (reads.push(`text of ${run.id}`), { parsed: rawParsed.data }),
          },
        },
      ],
    });
  });

  it('given an uploaded file run, when SourceUploaded arrives, then the file is read once and its parse recorded', async () => {
    const stream = await bed.given('r1', HISTORY.processing);
    await bed.when('ingestion', stream[1]);
    expect(reads).toEqual(['file runs/r1/source']);
    expect(await bed.decidedAfter('r1', 1)).toEqual([{ type: 'SourceParsed', data: parsed.data }]);
  });

  it('with no review preparations left, the run fails with the quota error and the file is not read', async () => {
    quota = 'exhausted';
    const stream = await bed.given('r1', HISTORY.processing);
    await bed.when('ingestion', stream[1]);
    expect(reads).toEqual([]);
    const decided = await bed.decidedAfter('r1', 1);
    expect(decided.map((e) => e.type)).toEqual(['RunFailed']);
    expect(decided[0].data).toMatchObject({ error: { code: 'review_preparation_quota_exceeded', retryable: false } });
  });

  it('given a raw-text run, when RunCreated arrives, then extraction starts and its records are recorded', async () => {
    const stream = await bed.given('r1', HISTORY.rawQueued);
    await bed.when('ingestion', stream[0]);
    expect(reads).toEqual(['text of r1']);
    expect(await bed.decidedAfter('r1', 0)).toEqual([
      { type: 'ExtractionStarted', data: { started_at: expect.any(String) } },
      { type: 'SourceParsed', data: rawParsed.data },
    ]);
  });

  it('a redelivered SourceUploaded finds the run parsed and does nothing', async () => {
    const stream = await bed.given('r1', HISTORY.parsed);
    await bed.when('ingestion', stream[1]);
    expect(reads).toEqual([]);
    expect(await bed.decidedAfter('r1', 2)).toEqual([]);
  });
});
