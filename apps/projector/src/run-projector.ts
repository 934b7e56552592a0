import { Inject, Injectable } from '@nestjs/common';
import { isRunEventType, runIdOfStream, runStreamId, type RunEvent, type StoredEvent } from '@app/contracts';
import { evolve } from '@app/domain';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { RUN_PROJECTION, laneCheckpoint, type EventConsumer } from '@app/processing';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { foldRun } from '@app/runs';

/**
 * Folds run events into the read model the gateway serves. Each document remembers the
 * stream revision it applied, and the checkpoint is written with it, so a replayed
 * event changes nothing and a rebuild gives the same documents.
 */
@Injectable()
export class RunProjector implements EventConsumer {
  readonly group = 'projector';

  constructor(
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  checkpoint(lane = ''): Promise<number> {
    return this.readModel.checkpoint(laneCheckpoint(RUN_PROJECTION, lane));
  }

  async handle(event: StoredEvent, lane = ''): Promise<void> {
    const runId = runIdOfStream(event.stream_id);
    const checkpoint = { name: laneCheckpoint(RUN_PROJECTION, lane), position: event.position };
    if (!runId || !isRunEventType(event.type)) return this.readModel.saveCheckpoint(checkpoint.name, checkpoint.position);
    const current = await this.readModel.getRun(runId);
    const applied = current?.revision ?? -1;
    if (event.revision <= applied) return this.readModel.saveCheckpoint(checkpoint.name, checkpoint.position);
    const next =
      event.revision === applied + 1
        ? evolve(current, { type: event.type, data: event.data } as RunEvent, event.revision, event.recorded_at)
        : // A gap (events missed): fold the stream up to this event instead of guessing.
          foldRun((await this.store.readStream(runStreamId(runId))).filter((e) => e.revision <= event.revision));
    await this.readModel.saveRun(next!, checkpoint);
  }
}
