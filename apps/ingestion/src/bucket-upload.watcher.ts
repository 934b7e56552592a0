import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, Optional } from '@nestjs/common';
import { BLOB_KEYS, BLOB_STORE, BUCKET_NOTIFICATIONS, type BlobStore, type BucketNotifications } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { CommandRefused, STAGES, runError } from '@app/domain';
import { LEASE_STORE, type LeaseStore, leaseHolder } from '@app/leases';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Poller } from '@app/polling';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';

const BATCH = 100;
/** Runs one look checks at most (each is a HEAD request to the bucket). */
const MAX_WATCHED = 5_000;
/**
 * An upload that began before its window closed may land this long after it: S3 checks a pre-signed
 * URL as the request begins, and the service cannot see an upload to the bucket begin, so the sweeper
 * waits this long past the window before it expires a run (run-sweeper.ts).
 */
export const LATE_UPLOAD_GRACE_MS = 15 * 60 * 1000;
/** How long past its window the watcher looks for a run's object: past the grace, so one that landed at its very end is recorded. */
export const LATE_UPLOAD_WATCH_MS = LATE_UPLOAD_GRACE_MS + 5 * 60 * 1000;
/** The periodic look is one replica's at a time: whoever holds this lease, renewed by each look. */
export const UPLOAD_WATCH_LEASE = 'upload-watcher';

/**
 * With the S3 blob store the client uploads straight to the bucket through the
 * pre-signed PUT, so the service never sees the upload happen. This watcher looks for
 * the source object of every run still waiting for one and records the upload
 * (CompleteUpload) when it appears; the run then goes on exactly as after a local upload.
 * Bucket notifications (MinIO to Kafka, BUCKET_EVENTS_TOPIC) make this immediate; the
 * periodic look is what makes it certain (a lost notification, a run created before the
 * notification consumer existed). An object over MAX_UPLOAD_BYTES (a pre-signed PUT cannot
 * cap the size) is deleted and the run fails with source_file_too_large.
 *
 * The periodic look is made by one replica at a time (lease `upload-watcher`, renewed by
 * each look, taken over about three poll periods after its holder stopped looking), so N
 * replicas do not make N times the bucket requests; notifications are handled wherever
 * they arrive (the recorded upload is idempotent).
 */
@Injectable()
export class BucketUploadWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BucketUploadWatcher.name);
  private notifications: { stop(): Promise<void> } | null = null;
  private readonly poller: Poller;
  private readonly holder = leaseHolder('upload-watcher');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(LEASE_STORE) private readonly leases: LeaseStore,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    @Optional() @Inject(BUCKET_NOTIFICATIONS) private readonly source: BucketNotifications | null = null,
  ) {
    this.poller = new Poller(BucketUploadWatcher.name, config.uploadPollMs, () => this.tick());
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.blobStore.kind !== 's3') return;
    if (this.source) this.notifications = await this.source.start((key) => this.onObjectCreated(key));
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    const polling = this.poller.stop(); // halts a look in progress at its next run
    await this.notifications?.stop();
    await polling;
    await this.leases.release(UPLOAD_WATCH_LEASE, this.holder).catch(() => undefined); // another replica looks next
  }

  /** A bucket notification: if the object is a run's source, look at that run now. */
  async onObjectCreated(key: string): Promise<void> {
    const runId = BLOB_KEYS.runIdOfSource(key);
    if (!runId) return;
    try {
      await this.check(runId);
    } catch (err) {
      if (!(err instanceof CommandRefused)) throw err;
    }
  }

  /**
   * One look at every run waiting for its file, page after page (oldest window first), so
   * past the first page no upload waits until its URL expired to be noticed.
   */
  async tick(now = new Date()): Promise<void> {
    const leaseMs = Math.max(10_000, this.config.uploadPollMs * 3);
    try {
      if (!(await this.leases.acquire(UPLOAD_WATCH_LEASE, this.holder, leaseMs))) return; // another replica looks
    } catch (err) {
      this.logger.error(`Could not take the upload watcher's lease: ${(err as Error).message}`);
      return;
    }
    const since = new Date(now.getTime() - LATE_UPLOAD_WATCH_MS).toISOString();
    const looked = new Set<string>();
    for (let limit = BATCH; looked.size < MAX_WATCHED; limit += BATCH) {
      let ids: string[];
      try {
        ids = await this.readModel.listAwaitingUpload(since, limit);
      } catch (err) {
        this.logger.error(`Could not list runs waiting for uploads: ${(err as Error).message}`);
        return;
      }
      for (const id of ids) {
        if (this.poller.stopped) return;
        if (looked.has(id)) continue; // recorded since the last page, or on an earlier one
        looked.add(id);
        try {
          await this.check(id);
        } catch (err) {
          if (!(err instanceof CommandRefused)) this.logger.error(`Run ${id}: upload check failed: ${(err as Error).message}`);
        }
      }
      if (ids.length < limit) return;
    }
    this.logger.warn(
      `More than ${MAX_WATCHED} runs wait for uploads: the rest are looked at next time (bucket notifications find them at once)`,
    );
  }

  private async check(runId: string): Promise<void> {
    const snapshot = await this.queryBus.execute(new LoadRunQuery(runId));
    const { state } = snapshot;
    if (!state || state.status !== 'awaiting_upload' || state.source_uploaded) return;
    const stat = await this.blobs.stat(state.source_key);
    if (!stat) return;
    const context = {
      organizationId: state.organization_id,
      correlationId: runId,
      causationId: runId,
      idempotencyKey: `bucket-upload/${runId}`,
    };
    const at = new Date().toISOString();
    if (stat.size > this.config.maxUploadBytes) {
      await this.blobs.delete(state.source_key);
      await this.commandBus.execute(
        new ApplyRunCommand(
          runId,
          {
            type: 'FailRun',
            at,
            error: runError('fileTooLarge', STAGES.ingestion, {
              message: `The uploaded file has ${stat.size} bytes; at most ${this.config.maxUploadBytes} are allowed.`,
            }),
          },
          context,
          snapshot,
        ),
      );
      return;
    }
    await this.commandBus.execute(new ApplyRunCommand(runId, { type: 'CompleteUpload', size_bytes: stat.size, at }, context, snapshot));
  }
}
