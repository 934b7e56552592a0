import type { RunError, StoredEvent } from '@app/contracts';
import type { CommandContext, RunCommandHandler } from '@app/runs';

/**
 * The context for a command a consumer issues because of `event`: same organization
 * and correlation, caused by the event, and idempotent per event (`step` names the
 * command within the handling, so two handlings of one event append once).
 */
export const contextFromEvent = (event: StoredEvent, step: string): CommandContext => ({
  organizationId: event.metadata.organization_id,
  correlationId: event.metadata.correlation_id,
  causationId: event.event_id,
  idempotencyKey: `${event.event_id}/${step}`,
});

/** Calls `fn` at most once per `intervalMs` (progress reporting). */
export function throttle(intervalMs: number): (fn: () => Promise<unknown>) => Promise<void> {
  let last = Date.now();
  return async (fn) => {
    if (Date.now() - last < intervalMs) return;
    last = Date.now();
    await fn();
  };
}

/** Fails a run because of `event` (idempotent per event, like every consumer command). */
export const failRunBecauseOf = (commands: RunCommandHandler, event: StoredEvent, runId: string, error: RunError) =>
  commands.execute(runId, { type: 'FailRun', error, at: new Date().toISOString() }, contextFromEvent(event, 'failed'));
