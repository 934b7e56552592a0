import type { StoredEvent } from '@app/contracts';
import type { CheckpointStore } from '@app/event-store';

/**
 * Name of a checkpoint for one lane of the bus (a Kafka partition). Positions increase
 * within a lane but not across lanes, so each lane has its own checkpoint; the single
 * lane of the in-process bus ('') keeps the plain name.
 */
export const laneCheckpoint = (name: string, lane = ''): string => (lane ? `${name}@${lane}` : name);

/**
 * A service's durable consumer of run events. `handle` must record its checkpoint for
 * the lane only once its work is durable; the host skips events at or below the lane's
 * checkpoint, which is how redelivered events are ignored.
 */
export interface EventConsumer {
  readonly group: string;
  checkpoint(lane?: string): Promise<number>;
  handle(event: StoredEvent, lane?: string): Promise<void>;
}

/** A consumer whose checkpoints live in a CheckpointStore and are saved after each event's work. */
export abstract class CheckpointedConsumer implements EventConsumer {
  abstract readonly group: string;
  protected constructor(private readonly checkpoints: CheckpointStore) {}

  checkpoint(lane = ''): Promise<number> {
    return this.checkpoints.load(laneCheckpoint(`consumer:${this.group}`, lane));
  }

  async handle(event: StoredEvent, lane = ''): Promise<void> {
    await this.process(event);
    await this.checkpoints.save(laneCheckpoint(`consumer:${this.group}`, lane), event.position);
  }

  protected abstract process(event: StoredEvent): Promise<void>;
}
