import { Logger } from '@nestjs/common';
import { TOPICS } from '@app/contracts';
import type { BusSubscription, MessageBus } from '@app/bus';
import type { EventConsumer } from './event-consumer';

/** Subscribes consumers to the run-events topic, each in its own group, skipping what they already handled. */
export class ConsumerHost {
  private readonly subscriptions: BusSubscription[] = [];
  private readonly logger = new Logger(ConsumerHost.name);

  constructor(private readonly bus: MessageBus) {}

  async start(consumer: EventConsumer): Promise<void> {
    let handledUpTo = await consumer.checkpoint();
    this.logger.log(`${consumer.group} consumes after position ${handledUpTo}`);
    this.subscriptions.push(
      await this.bus.subscribe(TOPICS.runEvents, consumer.group, async ({ value }) => {
        if (value.position <= handledUpTo) return;
        await consumer.handle(value);
        handledUpTo = value.position;
      }),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }
}
