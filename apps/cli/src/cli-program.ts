import { Command, CommanderError } from 'commander';
import { serviceUrl } from './admin-api-client';
import { registerAdminApiCommands } from './admin-api-commands';
import { CliExit, EXIT, EXIT_CODES_HELP, type ExitCode } from './exit-codes';
import { registerOperatorCommands } from './operator/operator-commands';

/** The whole command line: every command with its arguments, options and help. A new one per run (commander keeps state). */
export function buildProgram(): Command {
  const program = new Command()
    .name('npm run cli --')
    .description('Operator CLI of the transformation service: the admin API from a shell, and tools that work on the stores directly.')
    // Settings before the commands: commander copies them into each command it creates.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText(
      'after',
      () => `\n${environmentHelp()}\n\nRun "npm run cli -- <command> --help" for its arguments and options.\n\n${EXIT_CODES_HELP}`,
    );
  registerAdminApiCommands(program);
  registerOperatorCommands(program);
  return program;
}

const environmentHelp = () => `Environment:
  SERVICE_URL                    the running service, for the admin commands (now ${serviceUrl()})
  ADMIN_TOKEN                    the service's admin token, for the admin commands (${process.env.ADMIN_TOKEN ? 'set' : 'not set'})
  DATA_DIR                       the stores, for the operator commands (default ./data)
  EVENT_STORE, READ_MODEL, BUS   their adapters, as the service is configured (docs/configuration.md)`;

/**
 * Runs the CLI on `args` (the arguments after the script name) and returns its exit code
 * (exit-codes.ts); messages go to stderr, results to stdout.
 */
export async function runCli(args: string[]): Promise<ExitCode> {
  try {
    const program = buildProgram();
    // Commander answers `help <unknown>` with the program's help alone: say first what was not found.
    const [first, topic] = args;
    if (
      first === 'help' &&
      topic !== undefined &&
      !topic.startsWith('-') &&
      topic !== 'help' &&
      !program.commands.some((c) => c.name() === topic)
    ) {
      console.error(`error: unknown command "${topic}"\n`);
    }
    await program.parseAsync(args, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // Commander has already printed its message (or the help); everything it rejects is a usage error.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (err instanceof CliExit) {
      console.error(`error: ${err.message}`);
      return err.exitCode;
    }
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.failed;
  }
}
