import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
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
 * S3), and every consumer group of this process is consuming (its bus subscription runs, so
 * Kafka is reached) and not stuck on one event for more than STUCK_AFTER_MS.
 * Liveness (`/healthz`) asks nothing: the process and its event loop answer.
 */
@Injectable()
export class Readiness {
  private stopping = false;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly transport: RunEventsServer,
  ) {}

  /** Once shutting down, the process is not ready: no new work should be sent to it. */
  markStopping(): void {
    this.stopping = true;
  }

  /** The terminus result; throws ServiceUnavailableException (503, with the same details) when something is down. */
  check(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.reachable('event_store', () => this.store.headPosition()),
      () => this.reachable('read_model', () => this.readModel.checkpoint('readiness-probe')),
      () => this.reachable('blob_store', () => this.blobs.stat('readiness-probe')),
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
