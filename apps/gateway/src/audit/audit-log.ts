import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type AuditActor,
  type OrganizationEventMap,
  type OrganizationEventType,
  organizationStreamId,
  type StoredEvent,
} from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';

export interface AuditEntry {
  id: string;
  type: OrganizationEventType;
  actor: AuditActor;
  at: string;
  details: Record<string, unknown>;
}

/**
 * The organization's audit log: facts appended to its own stream (`organization-<uuid>`),
 * with any revision (entries are independent facts; their order is the store's).
 */
@Injectable()
export class AuditLog {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async record<K extends OrganizationEventType>(
    organizationId: string,
    actor: AuditActor,
    type: K,
    details: OrganizationEventMap[K],
    correlationId: string,
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.store.appendToStream(
      organizationStreamId(organizationId),
      [
        {
          event_id: randomUUID(),
          type,
          data: { ...details, actor },
          metadata: {
            organization_id: organizationId,
            correlation_id: correlationId,
            causation_id: correlationId,
            occurred_at: now,
            schema_version: 1,
          },
        },
      ],
      'any',
    );
  }

  /** Newest first, one page, with the total. */
  async list(organizationId: string, offset: number, limit: number): Promise<{ items: AuditEntry[]; total: number }> {
    const events = await this.store.readStream(organizationStreamId(organizationId));
    const newestFirst = events.slice().reverse();
    return { items: newestFirst.slice(offset, offset + limit).map(toEntry), total: events.length };
  }
}

function toEntry(event: StoredEvent): AuditEntry {
  const { actor, ...details } = event.data as Record<string, unknown> & { actor: AuditActor };
  return { id: event.event_id, type: event.type as OrganizationEventType, actor, at: event.metadata.occurred_at, details };
}
