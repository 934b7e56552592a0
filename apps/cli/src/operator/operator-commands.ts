import type { Command } from 'commander';
import { logPosition, nonEmpty, positiveInt, runId } from '../argument-parsers';
import type {
  DataBackupOptions,
  DeadLettersListOptions,
  EventsRepublishOptions,
  ReadModelRebuildOptions,
  RunHistoryOptions,
  SecretsReencryptOptions,
} from './operator-actions';

/**
 * Operator commands that work on the stores themselves, not through the admin API: the
 * same adapters the service is configured with (EVENT_STORE, READ_MODEL, BUS; the SQLite
 * files in DATA_DIR by default). Safe while the service runs. No ADMIN_TOKEN needed.
 */
export function registerOperatorCommands(program: Command): void {
  program.commandsGroup('Operator commands (on the stores in DATA_DIR, or EVENT_STORE/READ_MODEL/BUS; no ADMIN_TOKEN needed):');

  operatorCommand(program, 'run:history', 'print every event of one run, in order: revision, global position, time, type, data')
    .argument('<run-id>', 'id of the run (a UUID)', runId)
    .option('--json', 'print the events as a JSON array instead of one line per event')
    .action(async (id: string, options: RunHistoryOptions) => (await actions()).showRunHistory(id, options));

  operatorCommand(
    program,
    'readmodel:rebuild',
    'refold run documents from the event store and replace those that differ; prints a JSON report (progress bar on stderr)',
  )
    .option('--run <run-id>', 'rebuild only this run (default: every run in the event log)', runId)
    .option('--dry-run', 'only compare and report which documents differ; write nothing')
    .action(async (options: ReadModelRebuildOptions) => (await actions()).rebuildReadModelFromStore(options));

  operatorCommand(
    program,
    'events:republish',
    'send stored events with positions in a range to Kafka again, in order, keyed like the relay; ' +
      'prints a JSON report (progress bar on stderr). Needs BUS=kafka.',
  )
    .requiredOption('--from <position>', 'first global position to send (1 or more, included)', logPosition)
    .requiredOption('--to <position>', 'last global position to send (included, not below --from)', logPosition)
    .option('--run <run-id>', "send only this run's events", runId)
    .option('--dry-run', 'only count the events that would be sent; send nothing')
    .action(async (options: EventsRepublishOptions) => (await actions()).republishStoredEvents(options));

  operatorCommand(
    program,
    'secrets:reencrypt',
    'encrypt every stored webhook secret and provider API key with SECRETS_KEY: plaintext ones from before ' +
      'encryption and ones encrypted with a key in SECRETS_KEY_PREVIOUS; prints a JSON report (docs/security.md)',
  )
    .option('--dry-run', 'only count the secrets that would be encrypted again; write nothing')
    .addHelpText(
      'after',
      '  SECRETS_KEY                     the key to encrypt with (default: DATA_DIR/secrets.key)\n' +
        '  SECRETS_KEY_PREVIOUS            earlier keys, comma-separated: they only decrypt',
    )
    .action(async (options: SecretsReencryptOptions) => (await actions()).reencryptStoredSecrets(options));

  operatorCommand(
    program,
    'data:backup',
    'copy the embedded stores (events.sqlite, read-model.sqlite) and blobs of DATA_DIR into a new folder while the ' +
      'service runs; prints the backup\'s manifest (docs/operations.md, "Backups")',
  )
    .argument('<dir>', 'the backup folder: new or empty, outside DATA_DIR', nonEmpty)
    .option('--include-keys', 'also copy secrets.key and signing.key (by default kept apart: a backup holding them opens its secrets)')
    .action(async (dir: string, options: DataBackupOptions) => (await actions()).backUpDataDir(dir, options));

  operatorCommand(
    program,
    'data:restore',
    "put a backup made by data:backup into an empty DATA_DIR (the service stopped), then refold every run's document " +
      'from its events; prints a JSON report',
  )
    .argument('<dir>', 'the backup folder (with its backup.json)', nonEmpty)
    .addHelpText(
      'after',
      '  SECRETS_KEY                     the key the stored secrets were sealed with, if the backup holds no secrets.key',
    )
    .action(async (dir: string) => (await actions()).restoreDataDirFromBackup(dir));

  operatorCommand(program, 'dead-letters:list', 'list the events consumer groups gave up on (poison events), newest first')
    .option('--limit <n>', 'how many to show', positiveInt, 50)
    .option('--json', 'print the letters (whole events and errors) as JSON')
    .action(async (options: DeadLettersListOptions) => (await actions()).listDeadLetters(options));

  operatorCommand(
    program,
    'dead-letters:replay',
    "ask the letter's consumer group to handle its event again (the running service does it within seconds)",
  )
    .argument('<id>', 'the letter id, <group>/<event-id>, as dead-letters:list shows it', nonEmpty)
    .action(async (id: string) => (await actions()).replayDeadLetter(id));
}

/** The store adapters take a second to load: only when an operator command runs, not for --help. */
const actions = () => import('./operator-actions');

function operatorCommand(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .addHelpText(
      'after',
      '\nEnvironment:\n' +
        '  DATA_DIR                        where the SQLite stores are (default ./data)\n' +
        '  EVENT_STORE, READ_MODEL, BUS    the adapters, as the service is configured (docs/configuration.md)',
    );
}
