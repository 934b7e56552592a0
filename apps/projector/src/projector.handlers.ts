import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { RUN_EVENT_TYPES, runIdOfStream, runStreamId, type RunEvent, type StoredEvent, type WebhookAttempted } from '@app/contracts';
import { evolve } from '@app/domain';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { RUN_PROJECTION, RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { DELIVERY_LOG, type DeliveryLog, deliveryAttemptEntry } from '@app/read-model/delivery-log.port';
import { foldRun } from '@app/run-commands';
import { type RunEventContext, laneCheckpoint } from '@app/run-event-transport';

/**
 * Folds every run event into the read model the gateway serves, and every webhook attempt
 * into the organization's delivery log (one entry per `<delivery_id>:<attempt>`). Each document remembers
 * the stream revision it applied, and the projection's checkpoint is written with it, so
 * a replayed event changes nothing and a rebuild gives the same documents.
 */
@Controller()
export class ProjectorHandlers {
  constructor(
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DELIVERY_LOG) private readonly deliveryLog: DeliveryLog,
  ) {}

  // The document and the projection's checkpoint are written in one transaction (savesCheckpoint).
  @EventPattern(RUN_EVENT_TYPES, { consumer: 'projector', savesCheckpoint: true })
  async project(@Payload() event: StoredEvent, @Ctx() { lane }: RunEventContext): Promise<void> {
    const checkpoint = { name: laneCheckpoint(RUN_PROJECTION, lane), position: event.position };
    const runId = runIdOfStream(event.stream_id);
    if (!runId) return this.readModel.saveCheckpoint(checkpoint.name, checkpoint.position);
    const current = await this.readModel.getRun(runId);
    // Before the document: a crash in between writes the entry again on redelivery, which keeps the one there.
    if (event.type === 'WebhookAttempted') {
      const attempt = event.data as WebhookAttempted;
      const scheduledUrl = current?.webhooks?.[attempt.event]?.url ?? null;
      await this.deliveryLog.record(deliveryAttemptEntry(runId, event.metadata.organization_id, attempt, scheduledUrl));
    }
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
