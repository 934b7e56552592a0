import type { EventConsumer } from './event-consumer';

/** Apps register their consumers here while modules initialise; the pipeline runtime starts them all. */
export class ConsumerRegistry {
  private readonly consumers: EventConsumer[] = [];
  register(consumer: EventConsumer): void {
    this.consumers.push(consumer);
  }
  all(): EventConsumer[] {
    return [...this.consumers];
  }
}
