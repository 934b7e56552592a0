import type { StoredEvent, RunEvent } from '@app/contracts';
import { evolve, type RunFold } from '@app/domain';
import { latestTrace, type TraceCarrier } from '@app/tracing';

/** A run's decision state as of a stream revision (-1: the stream does not exist yet). */
export interface RunSnapshot {
  state: RunFold;
  revision: number;
  /** The run's trace: the trace context of its latest event that carries one (tracing on). */
  trace?: TraceCarrier;
}

export const foldRun = (events: StoredEvent[]): RunFold =>
  events.reduce<RunFold>((s, e) => evolve(s, { type: e.type, data: e.data } as RunEvent, e.revision, e.recorded_at), null);

export const snapshotOf = (events: StoredEvent[]): RunSnapshot => {
  const trace = latestTrace(events);
  return { state: foldRun(events), revision: events.length - 1, ...(trace ? { trace } : {}) };
};
