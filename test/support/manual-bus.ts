import { TOPICS, type StoredEvent } from '@app/contracts';
import type { BusRecord, BusSubscription, MessageBus, RecordHandler } from '@app/bus';

/**
 * A MessageBus a test drives by hand: nothing moves until `deliver` hands one record to
 * one consumer group, and the test awaits (or catches) that group's handling of it.
 */
export class ManualBus implements MessageBus {
  private readonly groups = new Map<string, RecordHandler>();
  /** What was published (to any topic): nothing is delivered from here; tests deliver with deliver(). */
  readonly published: Array<{ topic: string; records: BusRecord[] }> = [];

  async publish(topic: string, records: BusRecord[]): Promise<void> {
    this.published.push({ topic, records });
  }

  async subscribe(topic: string, group: string, handler: RecordHandler): Promise<BusSubscription> {
    if (topic !== TOPICS.runEvents) throw new Error(`ManualBus: unexpected topic ${topic}`);
    if (this.groups.has(group)) throw new Error(`ManualBus: ${group} subscribed twice`);
    this.groups.set(group, handler);
    return { running: () => this.groups.has(group), stop: async () => void this.groups.delete(group) };
  }

  async close(): Promise<void> {
    this.groups.clear();
  }

  subscribedGroups(): string[] {
    return [...this.groups.keys()].sort();
  }

  deliver(group: string, event: StoredEvent, lane?: string): Promise<void> {
    const handler = this.groups.get(group);
    if (!handler) throw new Error(`ManualBus: no subscription for ${group}`);
    return handler({ key: event.stream_id, value: event, lane });
  }
}
