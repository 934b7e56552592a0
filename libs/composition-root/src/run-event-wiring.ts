import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { AppConfig } from '@app/config';
import { TOPICS } from '@app/contracts';
import type { DeadLetterStore } from '@app/dead-letters';
import { InProcessBus, type MessageBus } from '@app/bus';
import { EventRelay } from '@app/event-relay';
import { type LeaseStore, leaseHolder } from '@app/leases';
import type { CheckpointStore, EventStore } from '@app/event-store';
import { RUN_PROJECTION, type RunReadModel } from '@app/read-model';
import { ClaimedSteps, RunEventsServer, laneCheckpoint, type BusFeeder, type ConsumerCheckpoints } from '@app/run-event-transport';

/** The projector's group: its checkpoints live with its documents, written in the same transaction. */
export const PROJECTOR_GROUP = 'projector';

/** Where each consumer group's checkpoints live: the projector's in the read model, every other group's in the checkpoint store. */
export function consumerCheckpoints(checkpoints: CheckpointStore, readModel: RunReadModel): ConsumerCheckpoints {
  const nameOf = (group: string, lane: string) =>
    group === PROJECTOR_GROUP ? laneCheckpoint(RUN_PROJECTION, lane) : laneCheckpoint(`consumer:${group}`, lane);
  return {
    load: (group, lane) => (group === PROJECTOR_GROUP ? readModel.checkpoint(nameOf(group, lane)) : checkpoints.load(nameOf(group, lane))),
    save: (group, lane, position) =>
      group === PROJECTOR_GROUP ? readModel.saveCheckpoint(nameOf(group, lane), position) : checkpoints.save(nameOf(group, lane), position),
  };
}

/**
 * The in-process bus keeps nothing across restarts: this process feeds its own consumers
 * from the event store, from the lowest of their checkpoints, so whatever one of them had
 * not finished is sent again. A durable bus (Kafka) is fed by the relay app instead.
 */
function inProcessFeeder(store: EventStore, bus: MessageBus, checkpoints: CheckpointStore): BusFeeder {
  return async (startAfter) => {
    const relay = new EventRelay(store, bus, checkpoints, { name: 'relay:in-process', startFrom: async () => startAfter });
    await relay.start();
    return relay;
  };
}

export function createRunEventsServer(deps: {
  config: AppConfig;
  bus: MessageBus;
  store: EventStore;
  checkpoints: CheckpointStore;
  readModel: RunReadModel;
  deadLetters: DeadLetterStore;
  leases: LeaseStore;
  commandBus: CommandBus;
  queryBus: QueryBus;
}): RunEventsServer {
  const inProcess = deps.bus instanceof InProcessBus;
  return new RunEventsServer(deps.bus, consumerCheckpoints(deps.checkpoints, deps.readModel), deps.commandBus, deps.queryBus, {
    feeder: inProcess ? inProcessFeeder(deps.store, deps.bus, deps.checkpoints) : null,
    deadLetters: deps.deadLetters,
    // The in-process bus keeps nothing: there the dead-letter store is the only record.
    deadLetterTopic: inProcess ? null : TOPICS.runEventDeadLetters,
    maxAttempts: deps.config.handlerMaxAttempts,
    replayPollMs: deps.config.deadLetterReplayPollMs,
    claims: new ClaimedSteps({ store: deps.leases, holder: leaseHolder('steps'), ...deps.config.stepClaims }),
    headPosition: () => deps.store.headPosition(),
  });
}
