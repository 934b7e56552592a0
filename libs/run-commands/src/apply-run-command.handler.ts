import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { RUN_EVENT_SCHEMA_VERSION, runStreamId, type NewEvent } from '@app/contracts';
import { decide, evolve, type RunFold } from '@app/domain';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '@app/event-store';
import { inRunTrace, traceMetadata } from '@app/tracing';
import { ApplyRunCommand, type CommandResult } from './apply-run-command';
import { deterministicId } from './command-context';
import { snapshotOf, type RunSnapshot } from './run-snapshot';

/** Appends after a concurrent append this many times before giving up. */
const ATTEMPTS = 5;

/**
 * Read, decide, append with the expected revision: the decider (`decide`/`evolve`) is
 * the one rule book; this handler only moves its decisions into the stream. On a
 * concurrent append it reads the stream again and decides again.
 */
@CommandHandler(ApplyRunCommand)
export class ApplyRunCommandHandler implements ICommandHandler<ApplyRunCommand, CommandResult> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ runId, command, context, known }: ApplyRunCommand): Promise<CommandResult> {
    const snapshot = known ?? (await this.read(runId));
    // The new events join the run's one trace (tracing on): see inRunTrace.
    return inRunTrace(snapshot.trace, `run ${command.type}`, { 'run.id': runId, 'run.command': command.type }, () =>
      this.decideAndAppend(runId, command, context, snapshot),
    );
  }

  private async decideAndAppend(
    runId: string,
    command: ApplyRunCommand['command'],
    context: ApplyRunCommand['context'],
    known: RunSnapshot,
  ): Promise<CommandResult> {
    let snapshot = known;
    // W3C trace context of the active span (none when tracing is off), carried by every new event.
    const trace = traceMetadata();
    for (let attempt = 1; ; attempt++) {
      const decided = decide(command, snapshot.state);
      // Nothing to record (the run is already as asked): nothing is appended.
      if (decided.length === 0) return { state: snapshot.state!, revision: snapshot.revision };
      const now = new Date().toISOString();
      const newEvents: NewEvent[] = decided.map((e, i) => ({
        event_id: context.idempotencyKey ? deterministicId(`${context.idempotencyKey}/${command.type}/${i}`) : randomUUID(),
        type: e.type,
        data: e.data,
        metadata: {
          // The run's own organization once it exists (its RunCreated, checked against the contract): a command issued
          // because of an event whose metadata could not be read (a damaged row, failed as a dead letter) still names it.
          organization_id: snapshot.state?.organization_id ?? context.organizationId,
          correlation_id: context.correlationId,
          causation_id: context.causationId,
          occurred_at: now,
          schema_version: RUN_EVENT_SCHEMA_VERSION[e.type],
          ...trace,
        },
      }));
      try {
        const expected = snapshot.revision < 0 ? 'no_stream' : snapshot.revision;
        const result = await this.store.appendToStream(runStreamId(runId), newEvents, expected);
        const firstRevision = result.nextExpectedRevision - newEvents.length + 1;
        const after = decided.reduce<RunFold>((s, e, i) => evolve(s, e, firstRevision + i, now), snapshot.state);
        return { state: after!, revision: result.nextExpectedRevision, ...(trace.traceparent ? { trace } : {}) };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= ATTEMPTS) throw err;
        snapshot = await this.read(runId);
      }
    }
  }

  private async read(runId: string): Promise<RunSnapshot> {
    return snapshotOf(await this.store.readStream(runStreamId(runId)));
  }
}
