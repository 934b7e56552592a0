/**
 * Every bus topic lives here, named `<domain>.<entity>.<event-family>.<version>`.
 * Run events are keyed by run id so that one run's events stay in order.
 */
export const TOPICS = {
  runEvents: 'transformation.run.events.v1',
  /** Events a consumer group gave up on (poison events), with the error in the headers (docs/events.md). */
  runEventDeadLetters: 'transformation.run.events.dlq.v1',
} as const;

/** Consumer groups: one per service; each keeps its own checkpoint. */
export const CONSUMER_GROUPS = {
  projector: 'projector',
  ingestion: 'ingestion',
  mapping: 'mapping',
  output: 'output',
  notifier: 'notifier',
} as const;
