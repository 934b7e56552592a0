import { randomBytes } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ConsoleLogger, Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { openBus, openDeadLetters, openDirectory, openEventStore } from '@app/composition-root';
import { describeMalformedRunEvent } from '@app/run-commands';
import { operationFailed, usageError } from '../exit-codes';
import { BackupRefused, backupDataDir, restoreDataDir } from './data-backup';
import { configuredAdapters, openStores, operatorConfig, operatorConfigWithKeys } from './open-stores';
import { rebuildReadModel } from './rebuild-read-model';
import { republishEvents } from './republish-events';
import { formatHistory, runHistory } from './run-history';
import { terminalProgress } from './terminal-progress';

/**
 * What the operator commands do once their arguments are parsed. Loaded only when one of
 * them runs (operator-commands.ts), so `--help` and the admin commands start fast.
 */

export interface RunHistoryOptions {
  json?: boolean;
}

export async function showRunHistory(runId: string, options: RunHistoryOptions): Promise<void> {
  const store = openEventStore(operatorConfig(['event store']));
  try {
    const events = await runHistory(store, runId);
    if (events.length === 0) throw operationFailed(`No events for run ${runId}.`);
    console.log(options.json ? JSON.stringify(events, null, 2) : formatHistory(events).join('\n'));
  } finally {
    await store.close();
  }
}

export interface ReadModelRebuildOptions {
  run?: string;
  dryRun?: boolean;
}

export async function rebuildReadModelFromStore(options: ReadModelRebuildOptions): Promise<void> {
  const dryRun = options.dryRun === true;
  const { store, readModel, close } = await openStores(operatorConfig(['event store', 'read model']));
  try {
    const report = await rebuildReadModel(store, readModel, { runId: options.run, dryRun, progress: terminalProgress() });
    // Loud on stderr, one line each; the store keeps them (docs/operations.md, "Malformed events").
    for (const m of report.malformed) console.error(`error: malformed event left out of its run: ${describeMalformedRunEvent(m)}`);
    console.log(
      JSON.stringify(
        {
          dry_run: dryRun,
          runs: report.runs,
          changed: report.changed.length,
          changed_runs: report.changed.slice(0, 100),
          newer_in_read_model: report.newerInReadModel,
          malformed_events: report.malformed.length,
          malformed: report.malformed.slice(0, 100),
          removed_runs: report.removed,
        },
        null,
        2,
      ),
    );
  } finally {
    await close();
  }
}

export interface SecretsReencryptOptions {
  dryRun?: boolean;
}

/** Seals every stored secret with the current SECRETS_KEY (after a rotation, or for plaintext from before encryption). */
export async function reencryptStoredSecrets(options: SecretsReencryptOptions): Promise<void> {
  const dryRun = options.dryRun === true;
  const config = operatorConfigWithKeys(['read model']);
  const directory = await openDirectory(config);
  try {
    const report = await directory.reencryptSecrets({ dryRun });
    console.log(JSON.stringify({ dry_run: dryRun, key_id: config.secrets.current.id, ...report }, null, 2));
  } finally {
    await directory.close();
  }
}

export interface EventsRepublishOptions {
  from: number;
  to: number;
  run?: string;
  dryRun?: boolean;
}

export async function republishStoredEvents(options: EventsRepublishOptions): Promise<void> {
  if (options.to < options.from) throw usageError(`--to (${options.to}) must not be below --from (${options.from}).`);
  requireKafka(configuredAdapters());
  const config = operatorConfig(['event store']);
  const brokers = requireKafka(config).brokers.join(',');
  const dryRun = options.dryRun === true;
  quietKafkaClientLog();
  const store = openEventStore(config);
  const bus = openBus(config, '-cli');
  try {
    const report = await republishEvents(store, bus, {
      from: options.from,
      to: options.to,
      runId: options.run,
      dryRun,
      progress: terminalProgress(),
    }).catch((err: unknown) => {
      throw isKafkaError(err) ? operationFailed(`Kafka at ${brokers} (KAFKA_BROKERS) failed: ${(err as Error).message}`) : err;
    });
    console.log(JSON.stringify({ dry_run: dryRun, ...report }, null, 2));
  } finally {
    await bus.close().catch(() => undefined);
    await store.close();
  }
}

function requireKafka(config: AppConfig): Extract<AppConfig['bus'], { kind: 'kafka' }> {
  if (config.bus.kind === 'kafka') return config.bus;
  throw usageError(
    'events:republish sends to Kafka (BUS=kafka, KAFKA_BROKERS). The embedded bus lives inside the service ' +
      'process, whose relay already re-sends everything after the lowest consumer checkpoint when it starts.',
  );
}

/** kafkajs's errors (KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, ...), as the bus passes them on. */
const isKafkaError = (err: unknown): boolean => err instanceof Error && err.name.startsWith('KafkaJS');

/**
 * The Kafka client logs through Nest's logger (the bus adapter's logCreator, context
 * `kafkajs`): in the service those are log lines, in a terminal a dozen coloured lines per
 * retry before the one error that matters. The CLI drops them and says the error once.
 */
function quietKafkaClientLog(): void {
  Logger.overrideLogger(new WithoutKafkaClientLines());
}

class WithoutKafkaClientLines extends ConsoleLogger {
  private static readonly context = 'kafkajs';
  private fromKafkaClient = (params: unknown[]): boolean => params[params.length - 1] === WithoutKafkaClientLines.context;
  override log(message: unknown, ...params: unknown[]) {
    if (!this.fromKafkaClient(params)) super.log(message, ...params);
  }
  override error(message: unknown, ...params: unknown[]) {
    if (!this.fromKafkaClient(params)) super.error(message, ...params);
  }
  override warn(message: unknown, ...params: unknown[]) {
    if (!this.fromKafkaClient(params)) super.warn(message, ...params);
  }
  override debug(message: unknown, ...params: unknown[]) {
    if (!this.fromKafkaClient(params)) super.debug(message, ...params);
  }
  override verbose(message: unknown, ...params: unknown[]) {
    if (!this.fromKafkaClient(params)) super.verbose(message, ...params);
  }
}

export interface DeadLettersListOptions {
  limit: number;
  json?: boolean;
}

/** The events consumer groups gave up on, newest first (docs/operations.md, "Dead letters"). */
export async function listDeadLetters(options: DeadLettersListOptions): Promise<void> {
  const deadLetters = await openDeadLetters(operatorConfig(['dead letters']));
  try {
    const letters = await deadLetters.list(options.limit);
    if (options.json) return console.log(JSON.stringify(letters, null, 2));
    if (letters.length === 0) return console.log('No dead letters.');
    for (const l of letters) {
      const replay = l.replay_requested_at ? `  replay asked ${l.replay_requested_at}: ${l.replay_outcome ?? 'pending'}` : '';
      console.log(
        `${l.id}  ${l.dead_at}  ${l.event.type}@${l.event.position} ${l.event.stream_id}  x${l.attempts}  ${l.error.name}: ${l.error.message}${replay}`,
      );
    }
  } finally {
    await deadLetters.close();
  }
}

/**
 * Asks the letter's consumer group to handle its event again (the running service picks it up
 * within DEAD_LETTER_REPLAY_POLL_MS and records the outcome on the letter).
 */
export async function replayDeadLetter(id: string): Promise<void> {
  const deadLetters = await openDeadLetters(operatorConfig(['dead letters']));
  try {
    const letter = await deadLetters.get(id);
    if (!letter) throw usageError(`No dead letter ${id} (see dead-letters:list).`);
    if (letter.group === 'relay') {
      throw usageError(`${id} is an event the bus refused; no consumer group can replay it. Fix the cause, then events:republish it.`);
    }
    await deadLetters.requestReplay(id, new Date().toISOString());
    console.log(`Replay of ${id} requested; its group handles it within a few seconds (dead-letters:list shows the outcome).`);
  } finally {
    await deadLetters.close();
  }
}

export interface DataBackupOptions {
  includeKeys?: boolean;
}

/** Copies DATA_DIR's embedded stores and blobs (and, asked, its key files) into `target` while the service runs. */
export async function backUpDataDir(target: string, options: DataBackupOptions): Promise<void> {
  requireEmbeddedStores(configuredAdapters(), 'data:backup');
  const config = operatorConfig(['event store', 'read model']);
  const into = resolve(target);
  if (isInside(await realPathOfNearest(into), await realPathOfNearest(config.dataDir)))
    throw usageError(`The backup folder ${into} is inside DATA_DIR (${config.dataDir}): choose one outside it, best on another disk.`);
  const manifest = await backupDataDir(config.dataDir, into, {
    includeKeys: options.includeKeys === true,
    progress: terminalProgress(),
  }).catch(refusedAsUsage);
  if (manifest.keys_left_out.length > 0)
    console.error(
      `warning: ${manifest.keys_left_out.join(' and ')} not copied (--include-keys copies them). Keep them apart from the ` +
        'backup, in a secret store: secrets.key opens the stored webhook secrets and AI vendor keys, and a restore needs it ' +
        '(or SECRETS_KEY); without signing.key the review and download links handed out before stop working.',
    );
  console.log(JSON.stringify(manifest, null, 2));
}

/**
 * Puts a backup into DATA_DIR (no stores there yet; the service stopped), then refolds every run's document from the
 * events, which were copied after the read model and may be ahead of it.
 */
export async function restoreDataDirFromBackup(backup: string): Promise<void> {
  const config = configuredAdapters();
  requireEmbeddedStores(config, 'data:restore');
  const from = resolve(backup);
  if (from === config.dataDir) throw usageError('The backup folder is DATA_DIR itself: restore into another, empty DATA_DIR.');
  const restored = await restoreDataDir(from, config.dataDir, {
    secretsKeyGiven: Boolean(process.env.SECRETS_KEY),
    progress: terminalProgress(),
    verify: storedSecretsOpen,
  }).catch(refusedAsUsage);
  const { store, readModel, close } = await openStores(operatorConfig(['event store', 'read model']));
  try {
    // The files are in place and checked by now: a failed refold is said as such, to be run again on its own.
    const report = await rebuildReadModel(store, readModel, { dryRun: false, progress: terminalProgress() }).catch((err: unknown) => {
      throw operationFailed(
        `The backup's files are restored into ${config.dataDir}, but the run documents were not refolded from the events ` +
          `(${(err as Error).message}). Run readmodel:rebuild before starting the service.`,
      );
    });
    for (const m of report.malformed) console.error(`error: malformed event left out of its run: ${describeMalformedRunEvent(m)}`);
    console.log(
      JSON.stringify(
        {
          restored_from: from,
          data_dir: config.dataDir,
          backup_created_at: restored.manifest.created_at,
          stores: restored.manifest.stores.map((s) => s.file),
          blobs: restored.blobs,
          keys: restored.keys,
          rebuilt: { runs: report.runs, changed: report.changed.length, malformed_events: report.malformed.length },
        },
        null,
        2,
      ),
    );
  } finally {
    await close();
  }
}

/**
 * Whether the key given (SECRETS_KEY, or DATA_DIR/secrets.key) opens the restored webhook secrets and vendor keys: a
 * dry run of secrets:reencrypt opens every one not sealed with it, and one sealed with a key it lacks fails. A service
 * started with another key would answer 500 wherever it needs one of them.
 */
async function storedSecretsOpen(): Promise<void> {
  // The signing key is not needed here: one stands in, so no signing.key is made in DATA_DIR by the check.
  const config = operatorConfigWithKeys(['read model'], { ...process.env, SIGNING_SECRET: randomBytes(32).toString('base64') });
  const directory = await openDirectory(config);
  try {
    await directory.reencryptSecrets({ dryRun: true });
  } catch (err) {
    throw operationFailed(
      `The restored secrets do not open with the key given (${config.secrets.source}, key id ${config.secrets.current.id}): ` +
        `${(err as Error).message} Nothing was restored. Give the secrets.key (or SECRETS_KEY) of the backed-up service, ` +
        'and SECRETS_KEY_PREVIOUS for keys rotated out since.',
    );
  } finally {
    await directory.close();
  }
}

/** A backup copies files: the event store, the read model and the blob store must all be the embedded ones. */
function requireEmbeddedStores(config: AppConfig, command: string): void {
  const elsewhere = [
    config.eventStore.kind !== 'sqlite' && "EVENT_STORE=eventstoredb (back it up with EventStoreDB's own backup)",
    config.readModel.kind !== 'sqlite' && 'READ_MODEL=mongo (mongodump)',
    config.blobStore.kind !== 'local' && "BLOB_STORE=s3 (the bucket's versioning or replication)",
  ].filter((x): x is string => x !== false);
  if (elsewhere.length > 0)
    throw usageError(`${command} copies the embedded stores in DATA_DIR; these are not: ${elsewhere.join('; ')}. Nothing was copied.`);
}

/** The real path (symbolic links followed) of `path`, or of its nearest folder that exists with the rest appended. */
async function realPathOfNearest(path: string): Promise<string> {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(await realpath(at), ...rest);
    } catch {
      if (dirname(at) === at) return path;
      rest.unshift(basename(at));
    }
  }
}

const isInside = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

const refusedAsUsage = (err: unknown): never => {
  throw err instanceof BackupRefused ? usageError(err.message) : err;
};
