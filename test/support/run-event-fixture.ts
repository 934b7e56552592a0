import type { StoredEvent } from '@app/contracts';

/** An event of run `runId` at a global position (its revision too), for transport tests. */
export const runEvent = (position: number, type: string, runId = 'r1'): StoredEvent => ({
  event_id: `e${position}`,
  type,
  data: {},
  stream_id: `run-${runId}`,
  revision: position,
  position,
  recorded_at: '',
  metadata: { organization_id: 'o1', correlation_id: 'req', causation_id: 'req', occurred_at: '', schema_version: 1 },
});
