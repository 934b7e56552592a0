import { Inject, Injectable, type OnModuleInit, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BLOB_STORE, LocalBlobStore, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { loopHealth } from '@app/polling';
import { RunEventsServer } from '@app/run-event-transport';

/** A group retrying one event for longer than this (an outage, a poison event being retried) makes the process not ready. */
export const STUCK_AFTER_MS = 60_000;
/** A store that has not answered within this is down for readiness (a probe must answer fast). */
const CHECK_TIMEOUT_MS = 3000;

function withinTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The local blob store's folder is there, a folder, and this process may read, write and enter it: a stat and an access
 * check, nothing written per probe. Looking a key up answered "not found" from a folder that was gone or unwritable.
 */
async function usableFolder(path: string): Promise<void> {
  const found = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === 'ENOENT' ? `${path} is missing` : `${path} cannot be read: ${err.message}`);
  });
  if (!found.isDirectory()) throw new Error(`${path} is not a directory`);
  await access(path, constants.R_OK | constants.W_OK | constants.X_OK).catch((err: Error) => {
    throw new Error(`${path} is not writable by this process: ${err.message}`);
  });
}

/** The status and body a readiness probe gets: 200 with terminus's report, or 503 with the same report saying what is down. */
export async function readinessAnswer(readiness: Readiness): Promise<{ status: 200 | 503; body: unknown }> {
  try {
    return { status: 200, body: await readiness.check() };
  } catch (err) {
    if (err instanceof ServiceUnavailableException) return { status: 503, body: err.getResponse() };
    return { status: 503, body: { status: 'error', error: { readiness: { status: 'down', message: (err as Error).message } } } };
  }
}

/**
 * Readiness (`/readyz`), through @nestjs/terminus: the stores this process needs answer
 * (event store, read model, blob store: SQLite and local files, or EventStoreDB, MongoDB and
 * S3; the local files' folder is there and writable), and every consumer group of this process is consuming (its bus subscription runs, so
 * Kafka is reached) and not stuck on one event for more than STUCK_AFTER_MS.
 * Liveness (`/healthz`) asks nothing: the process and its event loop answer.
 */
@Injectable()
export class Readiness implements OnModuleInit {
  private stopping = false;
  /** The embedded blob store's folder (openBlobStore's DATA_DIR/blobs); null with S3 (or any other store), which is asked for a key. */
  private readonly blobFolder: string | null;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly transport: RunEventsServer,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.blobFolder = blobs instanceof LocalBlobStore ? join(config.dataDir, 'blobs') : null;
  }

  /**
   * The local store makes its folder at its first write: made as the process starts instead, a folder missing later
   * (moved, deleted, an unmounted volume) is one readiness reports, not a fresh start.
   */
  async onModuleInit(): Promise<void> {
    // Not a reason to refuse the start (an app that writes no file, a read-only DATA_DIR): the probe says what is wrong.
    if (this.blobFolder) await mkdir(this.blobFolder, { recursive: true, mode: 0o700 }).catch(() => undefined);
  }

  /** Once shutting down, the process is not ready: no new work should be sent to it. */
  markStopping(): void {
    this.stopping = true;
  }

  /** The terminus result; throws ServiceUnavailableException (503, with the same details) when something is down. */
  check(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.reachable('event_store', () => this.store.headPosition()),
      () => this.reachable('read_model', () => this.readModel.checkpoint('readiness-probe')),
      () => this.reachable('blob_store', () => (this.blobFolder ? usableFolder(this.blobFolder) : this.blobs.stat('readiness-probe'))),
      () => this.consumers(),
      () => this.loops(),
      () => this.notStopping(),
    ]);
  }

  private async reachable(key: string, probe: () => Promise<unknown>): Promise<HealthIndicatorResult> {
    const session = this.indicator.check(key);
    try {
      await withinTimeout(probe());
      return session.up();
    } catch (err) {
      return session.down({ message: (err as Error).message });
    }
  }

  private consumers(): HealthIndicatorResult {
    const session = this.indicator.check('consumers');
    const now = Date.now();
    const groups = this.transport.health();
    const problems = groups.flatMap((g) => {
      if (!g.consuming) return [{ group: g.group, problem: 'not consuming (stopped or crashed)' }];
      if (g.failing && now - Date.parse(g.failing.since) > STUCK_AFTER_MS)
        return [
          { group: g.group, problem: `stuck on ${g.failing.type}@${g.failing.position} since ${g.failing.since}: ${g.failing.error}` },
        ];
      return [];
    });
    const groupNames = groups.map((g) => g.group);
    return problems.length === 0 ? session.up({ groups: groupNames }) : session.down({ groups: groupNames, problems });
  }

  /** Every loop that feeds consumers (subscriptions, relays, the in-process feeder, pollers) runs: none is waiting to start again after an error. */
  private loops(): HealthIndicatorResult {
    const session = this.indicator.check('loops');
    const problems = loopHealth.problems();
    return problems.length === 0 ? session.up() : session.down({ problems });
  }

  private notStopping(): HealthIndicatorResult {
    const session = this.indicator.check('process');
    return this.stopping ? session.down({ message: 'shutting down' }) : session.up();
  }
}
