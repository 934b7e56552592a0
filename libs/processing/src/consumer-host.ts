import { Logger } from '@nestjs/common';
import { TOPICS } from '@app/contracts';
import type { BusSubscription, MessageBus } from '@app/bus';
import type { EventConsumer } from './event-consumer';

/**
 * Subscribes consumers to the run-events topic, each in its own group, skipping what
 * they already handled: per lane (Kafka partition), an event at or below the lane's
 * checkpoint is a redelivery.
 */
export class ConsumerHost {
  private readonly subscriptions: BusSubscription[] = [];
  private readonly logger = new Logger(ConsumerHost.name);

  constructor(private readonly bus: MessageBus) {}

  async start(consumer: EventConsumer): Promise<void> {
    const handledUpTo = new Map<string, number>();
    const handled = async (lane: string) => {
      let at = handledUpTo.get(lane);
      if (at === undefined) handledUpTo.set(lane, (at = await consumer.checkpoint(lane)));
      return at;
    };
    this.logger.log(`${consumer.group} consumes after position ${await handled('')}`);
    this.subscriptions.push(
      await this.bus.subscribe(TOPICS.runEvents, consumer.group, async ({ value, lane = '' }) => {
        if (value.position <= (await handled(lane))) return;
        await consumer.handle(value, lane);
        handledUpTo.set(lane, value.position);
      }),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }
}
