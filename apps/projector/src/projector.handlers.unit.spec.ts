import type { RunState } from '@app/domain';
import { HISTORY, attempted, scheduled } from '@app/domain/testing/run-history.fixtures';
import { RUN_READ_MODEL } from '@app/read-model';
import { DELIVERY_LOG, type DeliveryAttemptEntry } from '@app/read-model/delivery-log.port';
import { foldRun } from '@app/run-commands';
import { RunEventTestBed } from '../../../test/support/run-event-test-bed';
import { ProjectorHandlers } from './projector.handlers';

/** The read model's run documents and checkpoints, in memory. */
class MemoryRunDocuments {
  readonly runs = new Map<string, RunState>();
  readonly checkpoints = new Map<string, number>();
  writes = 0;
  async getRun(id: string) {
    return this.runs.get(id) ?? null;
  }
  async saveRun(run: RunState, checkpoint: { name: string; position: number }) {
    this.writes++;
    this.runs.set(run.id, run);
    await this.saveCheckpoint(checkpoint.name, checkpoint.position);
  }
  async saveCheckpoint(name: string, position: number) {
    this.checkpoints.set(name, Math.max(this.checkpoints.get(name) ?? 0, position));
  }
}

/** The delivery log, in memory: an entry already there is kept (as the adapters do). */
class MemoryDeliveryLog {
  readonly entries = new Map<string, DeliveryAttemptEntry>();
  async record(entry: DeliveryAttemptEntry) {
    if (!this.entries.has(entry.id)) this.entries.set(entry.id, entry);
  }
}

describe('ProjectorHandlers (given / when / then)', () => {
  let bed: RunEventTestBed;
  let docs: MemoryRunDocuments;
  let log: MemoryDeliveryLog;
  beforeEach(async () => {
    docs = new MemoryRunDocuments();
    log = new MemoryDeliveryLog();
    bed = await RunEventTestBed.create({
      controllers: [ProjectorHandlers],
      providers: [
        { provide: RUN_READ_MODEL, useValue: docs },
        { provide: DELIVERY_LOG, useValue: log },
      ],
    });
  });

  it("writes each webhook attempt to the organization's delivery log once, replays included", async () => {
    const withUrl = { type: 'WebhookAttempted', data: { ...attempted(2, 'delivered', null).data, url: 'https://sent', duration_ms: 12 } };
    const stream = await bed.given('r1', [
      ...HISTORY.completedFinal,
      scheduled,
      attempted(1, 'failed', '2026-02-01T00:00:00.000Z'),
      withUrl as never,
    ]);
    for (const e of stream) await bed.when('projector', e);
    await bed.when('projector', { ...stream[7], position: stream[8].position + 1 }); // redelivered
    expect([...log.entries.values()]).toEqual([
      expect.objectContaining({ id: 'd1:1', organization_id: 'o1', run_id: 'r1', url: 'https://h', status_code: 500, duration_ms: null }),
      expect.objectContaining({
        id: 'd1:2',
        organization_id: 'o1',
        run_id: 'r1',
        url: 'https://sent',
        outcome: 'delivered',
        duration_ms: 12,
      }),
    ]);
    expect(docs.runs.get('r1')!.webhooks['transformation.finished']).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it("folds each event into the run's document, with the projection checkpoint written alongside", async () => {
    const stream = await bed.given('r1', HISTORY.completedFinal);
    for (const e of stream) await bed.when('projector', e, '2');
    expect(docs.runs.get('r1')).toEqual(foldRun(stream));
    expect(docs.runs.get('r1')!.revision).toBe(6);
    expect(Object.fromEntries(docs.checkpoints)).toEqual({ 'runs@2': stream[6].position });
    // Written with the document, not a second time by the transport.
    expect(bed.checkpoints.get('projector@2')).toBeUndefined();
  });

  it('a replayed event changes nothing; a gap is filled by folding the stream up to the event', async () => {
    const stream = await bed.given('r1', HISTORY.reviewActive);
    await bed.when('projector', stream[0]);
    await bed.when('projector', stream[3]); // revisions 1 and 2 never arrived here
    expect(docs.runs.get('r1')).toEqual(foldRun(stream));
    const writes = docs.writes;
    await bed.when('projector', { ...stream[2], position: stream[3].position + 10 }); // an old revision, redelivered later
    expect(docs.writes).toBe(writes);
    expect(docs.runs.get('r1')).toEqual(foldRun(stream));
    expect(docs.checkpoints.get('runs')).toBe(stream[3].position + 10); // the checkpoint still moves
  });

  it('an event type this version does not know (a newer producer) leaves the document alone and moves the checkpoint', async () => {
    const stream = await bed.given('r1', HISTORY.parsed);
    for (const e of stream) await bed.when('projector', e);
    const before = docs.runs.get('r1');
    await bed.when('projector', { ...stream[2], type: 'SomethingNewer', revision: 3, position: stream[2].position + 1 });
    expect(docs.runs.get('r1')).toBe(before);
    expect(bed.checkpoints.get('projector@')).toBe(stream[2].position + 1);
  });
});
