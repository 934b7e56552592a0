import { runStreamId, type StoredEvent } from '@app/contracts';
import type { EventStore } from '@app/event-store';

/** One line per event of a run: revision, global position, time, type and its data. */
export function formatHistory(events: StoredEvent[]): string[] {
  return events.map((e) => `#${e.revision}  pos ${e.position}  ${e.recorded_at}  ${e.type.padEnd(22)} ${JSON.stringify(e.data)}`);
}

export async function runHistory(store: EventStore, runId: string): Promise<StoredEvent[]> {
  return store.readStream(runStreamId(runId));
}
