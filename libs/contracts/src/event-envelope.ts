/**
 * The envelope every stored event travels in, from the event store through the bus to
 * every consumer. `position` is the global order of the store; `revision` the order
 * inside the run's own stream.
 */
export interface EventMetadata {
  /** Organization that owns the stream; consumers scope everything by it. */
  organization_id: string;
  /** Request id (or event id) that started the chain of work this event belongs to. */
  correlation_id: string;
  /** Id of the request or event that directly caused this one. */
  causation_id: string;
  /** When the fact happened (ISO 8601, UTC). */
  occurred_at: string;
  /** Version of this event type's payload shape. */
  schema_version: number;
  /**
   * W3C trace context (the `traceparent` header's value) of the span that appended the
   * event, when tracing is on: consumers continue the run's trace from it.
   */
  traceparent?: string;
  /** W3C `tracestate` that goes with `traceparent`, when there is one. */
  tracestate?: string;
}

export interface NewEvent<T = unknown> {
  event_id: string;
  type: string;
  data: T;
  metadata: EventMetadata;
}

export interface StoredEvent<T = unknown> extends NewEvent<T> {
  stream_id: string;
  /** 0-based position inside the stream. */
  revision: number;
  /** Global, strictly increasing position across all streams (1-based). */
  position: number;
  /** When the store committed the event (ISO 8601, UTC). */
  recorded_at: string;
}

export const RUN_STREAM_PREFIX = 'run-';
export const runStreamId = (runId: string): string => `${RUN_STREAM_PREFIX}${runId}`;
export const runIdOfStream = (streamId: string): string | null =>
  streamId.startsWith(RUN_STREAM_PREFIX) ? streamId.slice(RUN_STREAM_PREFIX.length) : null;
