import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { runIdOfStream, type RunError, type StoredEvent } from '@app/contracts';
import type { RunCommand, RunState } from '@app/domain';
import { ApplyRunCommand, LoadRunQuery, contextFromEvent, type RunSnapshot } from '@app/run-commands';

/** A command a handler asks for: `step` names it within the handling, which makes it idempotent per event. */
export interface StepCommand {
  command: RunCommand;
  step: string;
}

/**
 * One consumer's handling of one event of a run. The run's stream is read once, when the
 * handler first asks for it; each command is then appended at the revision the step
 * knows, and the step moves on with the state the command produced. Only a concurrent
 * append (another writer) makes the command handler read the stream again.
 */
export class RunStep {
  readonly runId: string | null;
  private snapshot: RunSnapshot | null = null;

  constructor(
    readonly event: StoredEvent,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {
    this.runId = runIdOfStream(event.stream_id);
  }

  /** The run as of now (read from its stream on first use). */
  async run(): Promise<RunState | null> {
    return (await this.current()).state;
  }

  /** Applies a command through the CommandBus; returns the run after it. */
  async apply({ command, step }: StepCommand): Promise<RunState> {
    const runId = this.requireRunId();
    const result = await this.commandBus.execute(
      new ApplyRunCommand(runId, command, contextFromEvent(this.event, step), await this.current()),
    );
    this.snapshot = result;
    return result.state;
  }

  /** Fails the run because of this event (idempotent per event, like every step's command). */
  fail(error: RunError): Promise<RunState> {
    return this.apply({ command: { type: 'FailRun', error, at: new Date().toISOString() }, step: 'failed' });
  }

  private async current(): Promise<RunSnapshot> {
    this.snapshot ??= await this.queryBus.execute(new LoadRunQuery(this.requireRunId()));
    return this.snapshot;
  }

  private requireRunId(): string {
    if (!this.runId) throw new Error(`${this.event.type}@${this.event.position} is not an event of a run (stream ${this.event.stream_id})`);
    return this.runId;
  }
}
