import { Logger } from '@nestjs/common';
import { TOPICS } from '@app/contracts';
import type { CheckpointStore, EventStore, Subscription } from '@app/event-store';
import type { MessageBus } from '../message-bus.port';

export interface RelayOptions {
  /** Name of the relay's checkpoint. */
  name: string;
  /**
   * Where to start instead of the relay's own checkpoint. The in-process bus keeps
   * nothing across restarts, so in embedded mode the relay starts from the lowest
   * checkpoint of its consumers and re-sends what any of them had not finished.
   */
  startFrom?: () => Promise<number>;
}

/**
 * Moves every event from the event store to the bus, in order, from a checkpoint, so
 * nothing appended is ever missing from the bus, even across crashes (it may be sent
 * twice; consumers skip what they already handled).
 */
export class EventRelay {
  private subscription: Subscription | null = null;
  private readonly logger = new Logger(EventRelay.name);

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly checkpoints: CheckpointStore,
    private readonly options: RelayOptions,
  ) {}

  async start(): Promise<void> {
    const from = this.options.startFrom ? await this.options.startFrom() : await this.checkpoints.load(this.options.name);
    this.logger.log(`Relaying events after position ${from}`);
    this.subscription = this.store.subscribeToAll(from, async (event) => {
      await this.bus.publish(TOPICS.runEvents, [{ key: event.stream_id, value: event }]);
      await this.checkpoints.save(this.options.name, event.position);
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}
