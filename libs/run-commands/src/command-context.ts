import { createHash } from 'node:crypto';
import type { StoredEvent } from '@app/contracts';

/** Who a command is for and what caused it: copied into the metadata of the events it appends. */
export interface CommandContext {
  organizationId: string;
  correlationId: string;
  causationId: string;
  /**
   * Makes event ids a function of this seed (e.g. the id of the event being handled),
   * so that a consumer handling the same event twice appends nothing new.
   */
  idempotencyKey?: string;
}

/** A UUID-shaped id derived from a seed (version nibble 5-like; not an RFC 4122 namespace UUID). */
export function deterministicId(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The context for a command a consumer issues because of `event`: same organization
 * and correlation, caused by the event, and idempotent per event (`step` names the
 * command within the handling, so two handlings of one event append once).
 */
export const contextFromEvent = (event: StoredEvent, step: string): CommandContext => ({
  organizationId: event.metadata.organization_id,
  // Metadata that could not be read (a stored text, not an object) names no correlation: the event starts one.
  correlationId: event.metadata.correlation_id ?? event.event_id,
  causationId: event.event_id,
  idempotencyKey: `${event.event_id}/${step}`,
});
