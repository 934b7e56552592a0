import { fileRetention, type RunState } from '@app/domain';

/**
 * Runs as the projector folded them. Each document remembers the stream revision it
 * applied, and the projector's checkpoint is written in the same transaction as the
 * document, so replaying events leaves the same read model.
 */
export interface RunReadModel {
  getRun(runId: string): Promise<RunState | null>;
  /** The same document for display only (the API's GETs): shared by every caller and frozen; possibly kept from an earlier read. */
  getRunView(runId: string): Promise<Readonly<RunState> | null>;
  /** Writes the run and the projector's checkpoint atomically. Checkpoints never move backwards. */
  saveRun(run: RunState, checkpoint: { name: string; position: number }): Promise<void>;
  /** Advances a checkpoint alone (for events that change no document). */
  saveCheckpoint(name: string, position: number): Promise<void>;
  checkpoint(name: string): Promise<number>;
  /**
   * Removes one run's document: a rebuild's repair of a run whose stream no longer folds to a run (its RunCreated
   * breaks its contract), so that a document written from it before cannot be served.
   */
  deleteRun(runId: string): Promise<void>;
  /** Removes every run document and the checkpoints named `name` or `name@<lane>` (before a rebuild). */
  reset(name: string): Promise<void>;
  /** Ids of runs with a webhook attempt due at or before `now` (webhook_due_at), earliest first. */
  listDueWebhooks(now: string, limit: number): Promise<string[]>;
  /**
   * Ids of runs still waiting for their file whose upload window ends after `since`
   * (uploads that go straight to a bucket are found by looking), oldest window first.
   */
  listAwaitingUpload(since: string, limit: number): Promise<string[]>;
  /** Ids of runs still waiting for their file whose upload window ended at or before `now`, oldest window first, then by id: the same order every time (the sweeper pages through it). */
  listUploadsOverdue(now: string, limit: number): Promise<string[]>;
  /**
   * Ids of runs whose files are due for deletion (the sweeper): an output whose
   * `file_retention_until` is at or before `now`, or a run that closed without output
   * (failed, review canceled or expired) at or before `closedBefore` (now minus the
   * retention). Purged runs are not listed.
   */
  listFilesToPurge(now: string, closedBefore: string, limit: number): Promise<string[]>;
  /** How many runs there are per status and stage (the `transform_runs` metric), from an index, not the documents. */
  countRunsByStatusAndStage(): Promise<RunCount[]>;
  /** An organization's runs, newest first (created_at, then id), filtered, one page and the total (the run list). */
  listRuns(organizationId: string, filter: RunListFilter, offset: number, limit: number): Promise<{ items: RunState[]; total: number }>;
  /** Runs created since `since` per UTC day and outcome, and the rows they processed (the console's usage). */
  runUsage(organizationId: string, since: string): Promise<RunUsage>;
}

export interface RunListFilter {
  status?: string;
  stage?: string;
  input_source?: string;
  /**
   * The review's state as the API shows it (`active`, `approved`, `canceled`, `expired`): what tells a run in review
   * from a finished one. `expired` is no stored state: an `active` review whose deadline is past `now`.
   */
  review_state?: string;
  /** The instant a review's deadline is judged against (ISO 8601), with `review_state`. */
  now?: string;
  /** ISO 8601 bounds of created_at, inclusive. */
  created_after?: string;
  created_before?: string;
  /** Text looked for (case-insensitively) in the file name or in one key or value of the metadata (run-search.ts). */
  q?: string;
}

/** Where a run ended up, for usage: `finished` (final output), `failed`, `canceled` (review canceled), else `other`. */
export type RunOutcome = 'finished' | 'failed' | 'canceled' | 'other';

export const runOutcome = (run: Pick<RunState, 'status' | 'stage' | 'review_state'>): RunOutcome =>
  run.status === 'failed'
    ? 'failed'
    : run.stage === 'final' && run.status === 'completed'
      ? 'finished'
      : run.review_state === 'canceled'
        ? 'canceled'
        : 'other';

export interface RunUsage {
  /** One entry per UTC day that had runs (days without are left out), oldest first. */
  days: Array<{ date: string; outcome: RunOutcome; count: number }>;
  /** Rows the runs created since then processed (their processed_rows). */
  rows_processed: number;
}

export interface RunCount {
  status: string;
  stage: string | null;
  count: number;
}

/** Until when a run's upload is worth looking for: its upload window while it waits for one. */
export const uploadWatchUntil = (run: RunState): string | null =>
  run.status === 'awaiting_upload' && !run.source_uploaded ? run.upload_expires_at : null;

/** The indexed retention columns of a run document (see fileRetention): one of them is set until the files are purged. */
export const retentionColumns = (run: RunState): { files_retained_until: string | null; files_closed_at: string | null } => {
  const r = fileRetention(run);
  return { files_retained_until: r?.kind === 'until' ? r.at : null, files_closed_at: r?.kind === 'closed' ? r.at : null };
};

export const RUN_READ_MODEL = Symbol('RUN_READ_MODEL');

/**
 * Named positions (consumers' and relays' checkpoints) kept with the read model, as MongoDB mode
 * does. The same shape as the event store's CheckpointStore, declared here so that this adapter
 * lib does not import another (the composition root hands it out as the checkpoint store).
 */
export interface NamedCheckpoints {
  load(name: string): Promise<number>;
  save(name: string, position: number): Promise<void>;
  list(): Promise<Record<string, number>>;
}
