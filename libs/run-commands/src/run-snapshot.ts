import { isJsonObject, runEventDataProblem, runIdOfStream, type RunEvent, type StoredEvent } from '@app/contracts';
import { evolve, type RunFold } from '@app/domain';
import { latestTrace, type TraceCarrier } from '@app/tracing';

/** A run's decision state as of a stream revision (-1: the stream does not exist yet). */
export interface RunSnapshot {
  state: RunFold;
  revision: number;
  /** The run's trace: the trace context of its latest event that carries one (tracing on). */
  trace?: TraceCarrier;
}

/** A stored run event the fold leaves out, and why (docs/decisions.md, "A malformed event in a run's stream"). */
export interface MalformedRunEvent {
  stream_id: string;
  revision: number;
  position: number;
  type: string;
  problem: string;
}

export const describeMalformedRunEvent = (m: MalformedRunEvent): string =>
  `${m.stream_id} revision ${m.revision} (position ${m.position}) ${m.type}: ${m.problem}`;

/**
 * A stored run event that breaks its contract, thrown by a consumer that cannot handle it: never an
 * outage, so the transport makes it a dead letter (docs/operations.md, "Dead letters").
 */
export class MalformedRunEventError extends Error {
  constructor(readonly malformed: MalformedRunEvent) {
    super(`malformed event ${describeMalformedRunEvent(malformed)}`);
    this.name = 'MalformedRunEventError';
  }
}

/**
 * What makes a stored event of a run stream unreadable on its own: metadata that is not an object, a payload
 * that does not match its type's contract (libs/contracts, run-event-validation.ts; a payload that is not JSON
 * at all arrives as its text, and is not an object), or a RunCreated that names another run than its stream's.
 */
export function runEventProblem(event: StoredEvent): string | null {
  // Metadata that is not a JSON object came from a damaged or hand-written row (the stores hand its text over).
  if (!isJsonObject(event.metadata)) return 'metadata is not a JSON object';
  const problem = runEventDataProblem(event.type, event.data);
  if (problem) return problem;
  if (event.type === 'RunCreated') {
    const runId = (event.data as { run_id: string }).run_id;
    if (runId !== runIdOfStream(event.stream_id)) return `data/run_id names run ${runId}, not the stream's`;
  }
  return null;
}

/** The event as a report of what is wrong with it. */
export const malformedRunEvent = (event: StoredEvent, problem: string): MalformedRunEvent => ({
  stream_id: event.stream_id,
  revision: event.revision,
  position: event.position,
  type: event.type,
  problem,
});

/**
 * The run's state after one stored event. A malformed event (its payload breaks its contract, or it comes
 * before the run's creation) is left out: the state stays as the events before it made it, only its revision
 * moves on, as for a type this code does not know; `malformed` hears of it. The store keeps it as it is.
 */
export function applyStoredEvent(state: RunFold, event: StoredEvent, malformed?: (m: MalformedRunEvent) => void): RunFold {
  const problem =
    runEventProblem(event) ??
    (!state && event.type !== 'RunCreated' ? 'the stream has no readable RunCreated before it (the run was never created)' : null);
  if (problem) {
    malformed?.(malformedRunEvent(event, problem));
    return state && { ...state, revision: event.revision };
  }
  return evolve(state, { type: event.type, data: event.data } as RunEvent, event.revision, event.recorded_at);
}

/** Folds a run's stored events; `malformed` hears of every event left out (applyStoredEvent). */
export const foldRun = (events: StoredEvent[], malformed?: (m: MalformedRunEvent) => void): RunFold =>
  events.reduce<RunFold>((s, e) => applyStoredEvent(s, e, malformed), null);

export const snapshotOf = (events: StoredEvent[]): RunSnapshot => {
  const trace = latestTrace(events);
  return { state: foldRun(events), revision: events.length - 1, ...(trace ? { trace } : {}) };
};
