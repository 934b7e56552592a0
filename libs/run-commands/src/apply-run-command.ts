import { Command } from '@nestjs/cqrs';
import type { RunCommand, RunState } from '@app/domain';
import type { TraceCarrier } from '@app/tracing';
import type { CommandContext } from './command-context';
import type { RunSnapshot } from './run-snapshot';

/** What a run looks like after a command, and the stream revision a projection must reach to show it. */
export interface CommandResult {
  state: RunState;
  revision: number;
  /** The trace context the appended events carry (tracing on), for the next command of the same caller. */
  trace?: TraceCarrier;
}

/**
 * Asks the decider to apply `command` to run `runId` and appends what it decides.
 * `known` is the snapshot the caller already read (a consumer's step reads the stream
 * once): the append expects its revision, and only a concurrent append makes the
 * handler read again.
 */
export class ApplyRunCommand extends Command<CommandResult> {
  constructor(
    readonly runId: string,
    readonly command: RunCommand,
    readonly context: CommandContext,
    readonly known?: RunSnapshot,
  ) {
    super();
  }
}
