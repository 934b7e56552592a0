import { Controller, Inject, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { RUN_EVENT_TYPES, runIdOfStream, runStreamId, type StoredEvent, type WebhookAttempted } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { RUN_PROJECTION, RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { DELIVERY_LOG, type DeliveryLog, deliveryAttemptEntry } from '@app/read-model/delivery-log.port';
import {
  MalformedRunEventError,
  applyStoredEvent,
  describeMalformedRunEvent,
  foldRun,
  malformedRunEvent,
  runEventProblem,
  type MalformedRunEvent,
} from '@app/run-commands';
import { type RunEventContext, laneCheckpoint } from '@app/run-event-transport';

/**
 * Folds every run event into the read model the gateway serves, and every webhook attempt
 * into the organization's delivery log (one entry per `<delivery_id>:<attempt>`). Each document remembers
 * the stream revision it applied, and the projection's checkpoint is written with it, so
 * a replayed event changes nothing and a rebuild gives the same documents.
 *
 * A stored event whose payload breaks its contract is refused (MalformedRunEventError: a dead letter,
 * and its run fails); folds leave it out, so its run shows what the other events say and every other
 * run is untouched (docs/decisions.md, "A malformed event in a run's stream").
 */
@Controller()
export class ProjectorHandlers {
  private readonly logger = new Logger('Projector');

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
    const problem = runEventProblem(event);
    if (problem) throw new MalformedRunEventError(malformedRunEvent(event, problem));
    const current = await this.readModel.getRun(runId);
    // Before the document: a crash in between writes the entry again on redelivery, which keeps the one there.
    if (event.type === 'WebhookAttempted') {
      const attempt = event.data as WebhookAttempted;
      const scheduledUrl = current?.webhooks?.[attempt.event]?.url ?? null;
      await this.deliveryLog.record(deliveryAttemptEntry(runId, event.metadata.organization_id, attempt, scheduledUrl));
    }
    const applied = current?.revision ?? -1;
    if (event.revision <= applied) return this.readModel.saveCheckpoint(checkpoint.name, checkpoint.position);
    const leftOut = (m: MalformedRunEvent) => this.logger.error(`Left out of run ${runId}'s document: ${describeMalformedRunEvent(m)}`);
    const next =
      event.revision === applied + 1
        ? applyStoredEvent(current, event, leftOut)
        : // A gap (events missed, or one refused as malformed): fold the stream up to this event instead of guessing.
          foldRun(
            (await this.store.readStream(runStreamId(runId))).filter((e) => e.revision <= event.revision),
            leftOut,
          );
    // No run to show: its RunCreated was malformed (and reported when it came).
    if (!next) return this.readModel.saveCheckpoint(checkpoint.name, checkpoint.position);
    await this.readModel.saveRun(next, checkpoint);
  }
}
