import { STAGES } from '../errors/run-error-codes';
import { isReviewExpired, type RunState } from './run-state';

/**
 * Where a run is in its life, derived from its state in this one place: the decider's
 * preconditions and the consumers' guards ask for a phase instead of combining status,
 * stage, review_state and total_rows themselves.
 */
export type RunPhase =
  | 'awaiting_upload' // a file or image run whose upload has not arrived
  | 'ingesting' // the source is being read (or a raw-text run waits to be extracted)
  | 'preparing_review' // parsed; the mapping is being suggested
  | 'in_review' // the review is open
  | 'producing_output' // approved; the final output is queued or being written
  | 'done' // the output exists
  | 'failed'
  | 'canceled' // the reviewer canceled
  | 'expired'; // the review's deadline passed while it was open

/** The run's phase; `now` decides whether an open review has expired (without it, it has not). */
export function runPhase(run: RunState, now?: Date): RunPhase {
  if (run.status === 'failed') return 'failed';
  if (run.stage === 'final') return run.status === 'completed' ? 'done' : 'producing_output';
  if (run.review_state === 'canceled') return 'canceled';
  if (run.review_state === 'active') return now && isReviewExpired(run, now) ? 'expired' : 'in_review';
  if (run.status === 'awaiting_upload') return 'awaiting_upload';
  return run.total_rows === null ? 'ingesting' : 'preparing_review';
}

/** The output step has started (OutputStarted) and not finished: progress and completion may be recorded. */
export const isWritingOutput = (run: RunState): boolean => runPhase(run) === 'producing_output' && run.status === 'processing';

/** The processing stage a failure in this phase is reported under (the run error's `stage`). */
export function stageOfPhase(phase: RunPhase): (typeof STAGES)[keyof typeof STAGES] {
  switch (phase) {
    case 'awaiting_upload':
      return STAGES.upload;
    case 'ingesting':
      return STAGES.ingestion;
    case 'preparing_review':
    case 'in_review':
      return STAGES.reviewPreparation;
    default:
      return STAGES.finalProcessing;
  }
}
