import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStreamId, type NewEvent, type RunEvent } from '@app/contracts';
import { SqliteEventStore } from '@app/event-store';
import { HISTORY, T0, parsed } from '@app/domain/testing/run-history.fixtures';
import { ApplyRunCommand } from './apply-run-command';
import { ApplyRunCommandHandler } from './apply-run-command.handler';
import { deterministicId } from './command-context';
import { snapshotOf } from './run-snapshot';

const RUN = 'r1';
const ctx = { organizationId: 'o1', correlationId: 'req-9', causationId: 'evt-3', idempotencyKey: 'evt-3/parsed' };
const toNew = (e: RunEvent, i: number): NewEvent => ({
  event_id: `given-${i}`,
  type: e.type,
  data: e.data,
  metadata: { organization_id: 'o1', correlation_id: 'c', causation_id: 'c', occurred_at: T0, schema_version: 1 },
});

describe('ApplyRunCommandHandler: read, decide, append at the expected revision', () => {
  let store: SqliteEventStore;
  let handler: ApplyRunCommandHandler;
  beforeEach(async () => {
    store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'apply-')), 'events.sqlite'), 20);
    handler = new ApplyRunCommandHandler(store);
    await store.appendToStream(runStreamId(RUN), HISTORY.processing.map(toNew), 'no_stream');
  });
  afterEach(() => store.close());

  it('appends what the decider decides, with the metadata of the context and ids derived from its idempotency key', async () => {
    const result = await handler.execute(new ApplyRunCommand(RUN, { type: 'RecordParse', parse: parsed.data }, ctx));
    const [appended] = (await store.readStream(runStreamId(RUN))).slice(2);
    expect(appended).toEqual(
      expect.objectContaining({
        event_id: deterministicId('evt-3/parsed/RecordParse/0'),
        type: 'SourceParsed',
        data: parsed.data,
        revision: 2,
        metadata: {
          organization_id: 'o1',
          correlation_id: 'req-9',
          causation_id: 'evt-3',
          occurred_at: expect.any(String),
          schema_version: 1,
        },
      }),
    );
    expect(result.revision).toBe(2);
    expect(result.state.total_rows).toBe(2);
  });

  it('uses the snapshot it is given without reading the stream', async () => {
    const known = snapshotOf(await store.readStream(runStreamId(RUN)));
    const read = jest.spyOn(store, 'readStream');
    await handler.execute(new ApplyRunCommand(RUN, { type: 'RecordIngestionProgress', processed_rows: 1 }, ctx, known));
    expect(read).not.toHaveBeenCalled();
  });

  it('on a concurrent append, reads again and decides again on the newer state', async () => {
    const stale = snapshotOf(await store.readStream(runStreamId(RUN)));
    // Another writer records progress first: the stale snapshot's revision is now wrong.
    await handler.execute(
      new ApplyRunCommand(RUN, { type: 'RecordIngestionProgress', processed_rows: 5 }, { ...ctx, idempotencyKey: 'other' }),
    );
    const result = await handler.execute(new ApplyRunCommand(RUN, { type: 'RecordParse', parse: parsed.data }, ctx, stale));
    const events = await store.readStream(runStreamId(RUN));
    expect(events.map((e) => [e.revision, e.type])).toEqual([
      [0, 'RunCreated'],
      [1, 'SourceUploaded'],
      [2, 'IngestionProgressed'],
      [3, 'SourceParsed'],
    ]);
    expect(result.revision).toBe(3);
  });

  it('a refusal on the newer state is the answer: nothing is appended', async () => {
    const stale = snapshotOf(await store.readStream(runStreamId(RUN)));
    await handler.execute(new ApplyRunCommand(RUN, { type: 'RecordParse', parse: parsed.data }, { ...ctx, idempotencyKey: 'first' }));
    await expect(handler.execute(new ApplyRunCommand(RUN, { type: 'RecordParse', parse: parsed.data }, ctx, stale))).rejects.toMatchObject({
      code: 'source_already_parsed',
    });
    expect(await store.readStream(runStreamId(RUN))).toHaveLength(3);
  });
});
