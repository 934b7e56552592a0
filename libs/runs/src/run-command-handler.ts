import { createHash, randomUUID } from 'node:crypto';
import { RUN_EVENT_SCHEMA_VERSION, runStreamId, type NewEvent, type RunEvent, type StoredEvent } from '@app/contracts';
import { decide, evolve, type RunCommand, type RunFold, type RunState } from '@app/domain';
import { type EventStore, WrongExpectedRevisionError } from '@app/event-store';

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

export interface CommandResult {
  state: RunState;
  /** Stream revision of the run after the command (what a projection must reach to show it). */
  revision: number;
}

/** A UUID-shaped id derived from a seed (version nibble 5-like; not an RFC 4122 namespace UUID). */
export function deterministicId(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const foldRun = (events: StoredEvent[]): RunFold =>
  events.reduce<RunFold>((s, e) => evolve(s, { type: e.type, data: e.data } as RunEvent, e.revision, e.recorded_at), null);

/**
 * Runs one command against a run: read the stream, fold, decide, append with the
 * expected revision; on a concurrent append, start again (up to a few times).
 */
export class RunCommandHandler {
  constructor(private readonly store: EventStore) {}

  async load(runId: string): Promise<{ state: RunFold; revision: number }> {
    const events = await this.store.readStream(runStreamId(runId));
    return { state: foldRun(events), revision: events.length - 1 };
  }

  async execute(runId: string, command: RunCommand, ctx: CommandContext): Promise<CommandResult> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(runId);
      const decided = decide(command, state);
      const now = new Date().toISOString();
      const newEvents: NewEvent[] = decided.map((e, i) => ({
        event_id: ctx.idempotencyKey ? deterministicId(`${ctx.idempotencyKey}/${command.type}/${i}`) : randomUUID(),
        type: e.type,
        data: e.data,
        metadata: {
          organization_id: ctx.organizationId,
          correlation_id: ctx.correlationId,
          causation_id: ctx.causationId,
          occurred_at: now,
          schema_version: RUN_EVENT_SCHEMA_VERSION[e.type],
        },
      }));
      try {
        const result = await this.store.appendToStream(runStreamId(runId), newEvents, revision < 0 ? 'no_stream' : revision);
        const firstRevision = result.nextExpectedRevision - newEvents.length + 1;
        const after = decided.reduce<RunFold>((s, e, i) => evolve(s, e, firstRevision + i, now), state);
        return { state: after!, revision: result.nextExpectedRevision };
      } catch (err) {
        if (err instanceof WrongExpectedRevisionError && attempt < 5) continue;
        throw err;
      }
    }
  }
}

export const RUN_COMMAND_HANDLER = Symbol('RUN_COMMAND_HANDLER');
