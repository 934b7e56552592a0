import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { CommandRefused, filesPurgeDue, isUploadOverdue, runFileKeys } from '@app/domain';
import { LEASE_STORE, UPLOAD_LEASE_TTL_MS, holdLease, leaseHolder, uploadLease, type LeaseStore } from '@app/leases';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Poller } from '@app/polling';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { LATE_UPLOAD_GRACE_MS, LATE_UPLOAD_WATCH_MS } from './bucket-upload.watcher';

const BATCH = 100;
/** Runs one sweep looks at, per kind, at most. */
const MAX_LOOKED = 1_000;
/** Failures in a row (not refusals) after which a sweep stops: its store is likely down; the next sweep tries again. */
const MAX_FAILURES_IN_A_ROW = 10;
/**
 * How long after its upload window a run is expired, with the embedded store: a PUT whose URL was checked
 * just before the end takes the upload lease within it, also after waiting out another upload of the run
 * (local-file-routes.ts, 2 s). With S3 the service does not see an upload begin, so the margin is the
 * watcher's LATE_UPLOAD_GRACE_MS: an upload that began in time has that long to land.
 */
const EXPIRY_MARGIN_MS = 5_000;

/**
 * The periodic clean-up of runs that time has closed (docs/security.md, "Expiry and retention"):
 *
 * - a file run whose upload window (`upload.expires_at`) ended with no upload fails with
 *   `upload_expired` (ExpireUpload -> RunFailed), which sends its transformation.failed webhook;
 *   not while an upload that began in time is arriving (it holds the run's upload lease);
 * - a run's files (source, extracted rows, output) are deleted when their retention ends:
 *   an output at its `file_retention_until`, a run that closed without output (failed, review
 *   canceled or expired) OUTPUT_RETENTION_SECONDS after it closed. The deletion is recorded
 *   (PurgeFiles -> FilesPurged) after the files are gone, so a crash in between only deletes
 *   again (deleting is idempotent) and a recorded purge is never repeated.
 *
 * Every decision is the decider's, against the stream (the read model only says where to
 * look), and commands carry idempotency keys: several sweepers (replicas, a restart mid-tick)
 * append nothing twice.
 */
@Injectable()
export class RunSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RunSweeper.name);
  private readonly poller: Poller;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(LEASE_STORE) private readonly leases: LeaseStore,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {
    this.poller = new Poller(RunSweeper.name, config.sweepIntervalMs, () => this.tick());
  }

  onApplicationBootstrap(): void {
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
  }

  /** One sweep: overdue uploads first (a failed run then counts as closed), then files past retention. */
  async tick(now = new Date()): Promise<void> {
    // Overdue by a margin: a PUT whose signature was checked just before the window closed takes the run's upload lease
    // first (embedded), or lands in the bucket within the grace (S3).
    const margin = this.config.blobStore.kind === 's3' ? LATE_UPLOAD_GRACE_MS : EXPIRY_MARGIN_MS;
    const overdueAt = new Date(now.getTime() - margin).toISOString();
    await this.sweep(
      'overdue uploads',
      (limit) => this.readModel.listUploadsOverdue(overdueAt, limit),
      (id) => this.expireUpload(id, now),
    );
    const closedBefore = new Date(now.getTime() - this.config.outputRetentionSeconds * 1000).toISOString();
    await this.sweep(
      'files to purge',
      (limit) => this.readModel.listFilesToPurge(now.toISOString(), closedBefore, limit),
      (id) => this.purgeFiles(id, now),
    );
  }

  /**
   * Handles each listed run once, page after page: a run left where it was (its upload still
   * arriving, a deletion that failed) stays at the head of the list, so later pages reach past
   * it rather than the same page being looked at again (at most MAX_LOOKED runs a sweep).
   */
  private async sweep(what: string, list: (limit: number) => Promise<string[]>, handle: (runId: string) => Promise<void>): Promise<void> {
    const looked = new Set<string>();
    let failures = 0;
    for (let limit = BATCH; looked.size < MAX_LOOKED; limit += BATCH) {
      let ids: string[];
      try {
        ids = await list(limit);
      } catch (err) {
        this.logger.error(`Could not list ${what}: ${(err as Error).message}`);
        return;
      }
      for (const id of ids) {
        if (this.poller.stopped) return;
        if (looked.has(id)) continue;
        looked.add(id);
        try {
          await handle(id);
          failures = 0;
        } catch (err) {
          // Refused: another sweeper or an upload got there first. Anything else is tried again next sweep.
          if (err instanceof CommandRefused) continue;
          this.logger.error(`Run ${id}: sweep failed: ${(err as Error).message}`);
          if (++failures >= MAX_FAILURES_IN_A_ROW) {
            this.logger.error(`${what}: ${failures} failures in a row; the rest waits for the next sweep`);
            return;
          }
        }
      }
      if (ids.length < limit) return;
    }
  }

  private async expireUpload(runId: string, now: Date): Promise<void> {
    // Taken before the run is read: an upload that began in time holds it until it is recorded
    // (the embedded upload route), and one that begins now waits for this decision.
    const lease = await holdLease(this.leases, uploadLease(runId), leaseHolder('sweeper'), UPLOAD_LEASE_TTL_MS);
    if (!lease) return this.logger.debug(`Run ${runId}: its upload is arriving; not expired`);
    try {
      await this.expireUnlessUploaded(runId, now);
    } finally {
      await lease.release();
    }
  }

  private async expireUnlessUploaded(runId: string, now: Date): Promise<void> {
    const snapshot = await this.queryBus.execute(new LoadRunQuery(runId));
    const { state } = snapshot;
    if (!state || !isUploadOverdue(state, now)) return;
    // A file already in storage arrived in time and is about to be recorded (the upload route
    // between its write and CompleteUpload, or the bucket watcher's next look): leave it to them
    // for as long as the watcher looks for it.
    if ((await this.blobs.stat(state.source_key)) && now.getTime() < Date.parse(state.upload_expires_at!) + LATE_UPLOAD_WATCH_MS) return;
    await this.commandBus.execute(
      new ApplyRunCommand(
        runId,
        { type: 'ExpireUpload', at: now.toISOString() },
        { organizationId: state.organization_id, correlationId: runId, causationId: runId, idempotencyKey: `upload-expired/${runId}` },
        snapshot,
      ),
    );
  }

  private async purgeFiles(runId: string, now: Date): Promise<void> {
    const snapshot = await this.queryBus.execute(new LoadRunQuery(runId));
    const { state } = snapshot;
    if (!state) return;
    const due = filesPurgeDue(state, this.config.outputRetentionSeconds);
    if (!due || Date.parse(due.due_at) > now.getTime()) return;
    for (const key of runFileKeys(state)) await this.blobs.delete(key);
    await this.commandBus.execute(
      new ApplyRunCommand(
        runId,
        { type: 'PurgeFiles', retention_seconds: this.config.outputRetentionSeconds, at: now.toISOString() },
        { organizationId: state.organization_id, correlationId: runId, causationId: runId, idempotencyKey: `files-purged/${runId}` },
        snapshot,
      ),
    );
    this.logger.log(`Run ${runId}: files deleted (${due.reason})`);
  }
}
