/**
 * The operator CLI's exit codes, in one place (docs/operations.md, "Operator CLI: commands
 * and exit codes"). Scripts may rely on them: 1 means "it ran and failed", 2 means "it did
 * not run: fix the command line or the environment first".
 */
export const EXIT = {
  /** The command did what it was asked (also: `--help`, `help`). */
  ok: 0,
  /** The operation failed: the admin API answered an error, the service could not be reached, a store operation failed, nothing found. */
  failed: 1,
  /** Usage error: unknown command or option, missing or invalid argument, or the environment the command needs is missing or invalid (ADMIN_TOKEN, SERVICE_URL, BUS, ...). Nothing was done. */
  usage: 2,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit codes as the help output and the docs list them. */
export const EXIT_CODES_HELP = `Exit codes:
  ${EXIT.ok}  success (also --help and help)
  ${EXIT.failed}  the operation failed: the admin API answered an error, the service could not be reached,
     a store operation failed, or nothing was found
  ${EXIT.usage}  usage error, nothing was done: unknown command or option, missing or invalid argument,
     or missing/invalid environment (ADMIN_TOKEN, SERVICE_URL, EVENT_STORE, BUS, ...)`;

/**
 * Thrown by a command to end the CLI with `exitCode`; the CLI prints `message` on stderr.
 * Anything else a command throws ends it with EXIT.failed.
 */
export class CliExit extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliExit';
  }
}

/** The command line or the environment is wrong; nothing was done. */
export const usageError = (message: string): CliExit => new CliExit(EXIT.usage, message);

/** The command ran and its operation failed. */
export const operationFailed = (message: string): CliExit => new CliExit(EXIT.failed, message);
