import type { StoredEvent } from '@app/contracts';

/** One message: the event, keyed by its stream so that one run's events keep their order. */
export interface BusRecord {
  key: string;
  value: StoredEvent;
  /**
   * Set by the bus on delivery: the ordered lane (Kafka partition) the record came from.
   * Positions only increase within a lane, so consumers keep one checkpoint per lane.
   * Absent for a bus with a single, totally ordered lane (the in-process bus).
   */
  lane?: string;
  /** Extra headers to publish with the record (Kafka headers; e.g. a dead letter's error). */
  headers?: Record<string, string>;
}

export type RecordHandler = (record: BusRecord) => Promise<void>;

export interface BusSubscription {
  stop(): Promise<void>;
}

/**
 * The message bus port. Delivery is at least once: a record whose handler throws is
 * delivered again (after a back-off) before any later record of the same key.
 * Each consumer group receives every record; consumers must be idempotent.
 */
export interface MessageBus {
  publish(topic: string, records: BusRecord[]): Promise<void>;
  subscribe(topic: string, groupId: string, handler: RecordHandler): Promise<BusSubscription>;
  close(): Promise<void>;
}

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
