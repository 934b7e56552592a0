import { Logger } from '@nestjs/common';
import type { BusRecord, BusSubscription, MessageBus, RecordHandler } from '../message-bus.port';

interface Group {
  handler: RecordHandler;
  /** Offset of the next record to deliver. */
  offset: number;
  running: boolean;
  stopped: boolean;
  idle: Promise<void>;
}

interface Topic {
  records: BusRecord[];
  /** Offset of records[0]; records below every group's offset are dropped. */
  base: number;
  groups: Map<string, Group>;
}

/**
 * A bus inside one process: a log per topic kept in memory until every group has
 * handled it, one sequential delivery loop per group (so per-key order holds), and
 * redelivery with back-off when a handler throws. It keeps nothing across restarts:
 * in embedded mode the relay replays from the event store what consumers had not
 * yet checkpointed (see EventRelay).
 */
export class InProcessBus implements MessageBus {
  private readonly topics = new Map<string, Topic>();
  private readonly logger = new Logger(InProcessBus.name);

  constructor(private readonly retryDelayMs = { first: 50, max: 5000 }) {}

  private topic(name: string): Topic {
    let t = this.topics.get(name);
    if (!t) this.topics.set(name, (t = { records: [], base: 0, groups: new Map() }));
    return t;
  }

  async publish(topic: string, records: BusRecord[]): Promise<void> {
    const t = this.topic(topic);
    t.records.push(...records);
    for (const g of t.groups.values()) this.drain(t, g);
  }

  async subscribe(topic: string, groupId: string, handler: RecordHandler): Promise<BusSubscription> {
    const t = this.topic(topic);
    if (t.groups.has(groupId)) throw new Error(`Group ${groupId} already consumes ${topic} in this process`);
    const group: Group = { handler, offset: t.base, running: false, stopped: false, idle: Promise.resolve() };
    t.groups.set(groupId, group);
    this.drain(t, group);
    return {
      running: () => !group.stopped,
      stop: async () => {
        group.stopped = true;
        await group.idle;
        t.groups.delete(groupId);
        this.trim(t);
      },
    };
  }

  private drain(t: Topic, g: Group): void {
    if (g.running || g.stopped) return;
    g.running = true;
    g.idle = (async () => {
      let delay = this.retryDelayMs.first;
      while (!g.stopped && g.offset < t.base + t.records.length) {
        const record = t.records[g.offset - t.base];
        try {
          await g.handler(record);
          g.offset += 1;
          delay = this.retryDelayMs.first;
          this.trim(t);
        } catch (err) {
          this.logger.warn(
            `Handler failed on ${record.value.type}@${record.value.position}; retrying in ${delay} ms: ${(err as Error).message}`,
          );
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, this.retryDelayMs.max);
        }
      }
      g.running = false;
    })();
  }

  private trim(t: Topic): void {
    if (t.groups.size === 0) return;
    const min = Math.min(...[...t.groups.values()].map((g) => g.offset));
    if (min > t.base) {
      t.records.splice(0, min - t.base);
      t.base = min;
    }
  }

  async close(): Promise<void> {
    for (const t of this.topics.values()) {
      for (const g of t.groups.values()) g.stopped = true;
      await Promise.all([...t.groups.values()].map((g) => g.idle));
    }
  }
}
