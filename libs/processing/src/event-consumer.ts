import type { StoredEvent } from '@app/contracts';
import type { CheckpointStore } from '@app/event-store';

/**
 * A service's durable consumer of run events. `handle` must record its checkpoint only
 * once its work is durable; the host skips events at or below the checkpoint, which is
 * how redelivered events are ignored.
 */
export interface EventConsumer {
  readonly group: string;
  checkpoint(): Promise<number>;
  handle(event: StoredEvent): Promise<void>;
}

/** A consumer whose checkpoint lives in a CheckpointStore and is saved after each event's work. */
export abstract class CheckpointedConsumer implements EventConsumer {
  abstract readonly group: string;
  protected constructor(private readonly checkpoints: CheckpointStore) {}

  checkpoint(): Promise<number> {
    return this.checkpoints.load(`consumer:${this.group}`);
  }

  async handle(event: StoredEvent): Promise<void> {
    await this.process(event);
    await this.checkpoints.save(`consumer:${this.group}`, event.position);
  }

  protected abstract process(event: StoredEvent): Promise<void>;
}
