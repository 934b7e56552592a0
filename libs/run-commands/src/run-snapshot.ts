import type { StoredEvent, RunEvent } from '@app/contracts';
import { evolve, type RunFold } from '@app/domain';

/** A run's decision state as of a stream revision (-1: the stream does not exist yet). */
export interface RunSnapshot {
  state: RunFold;
  revision: number;
}

export const foldRun = (events: StoredEvent[]): RunFold =>
  events.reduce<RunFold>((s, e) => evolve(s, { type: e.type, data: e.data } as RunEvent, e.revision, e.recorded_at), null);

export const snapshotOf = (events: StoredEvent[]): RunSnapshot => ({ state: foldRun(events), revision: events.length - 1 });
