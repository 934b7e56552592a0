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
  /** False once the subscription stopped or its consumer crashed for good (readiness turns not-ready). */
  running(): boolean;
}

/** How far a consumer group is behind in one lane, in records. */
export interface LaneLag {
  lane: string;
  behind: number;
}

/**
 * The message bus port. Delivery is at least once: a record whose handler throws is
 * delivered again (after a back-off) before any later record of the same key.
 * Each consumer group receives every record; consumers must be idempotent.
 */
export interface MessageBus {
  publish(topic: string, records: BusRecord[]): Promise<void>;
  subscribe(topic: string, groupId: string, handler: RecordHandler): Promise<BusSubscription>;
  /**
   * A durable bus's own view of a group's lag per lane (Kafka: end offset minus committed
   * offset per partition). Absent for the in-process bus: there the lag is the event
   * store's head minus the group's checkpoint.
   */
  consumerLag?(topic: string, groupId: string): Promise<LaneLag[]>;
  close(): Promise<void>;
}

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
