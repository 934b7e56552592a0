import { given } from '../testing/given-when-then';
import { AFTER_EXPIRY, HISTORY, T0, fold, parsed, prepared, produced } from '../testing/run-history.fixtures';
import { runPhase, type RunPhase } from './run-phase';

const H = {
  ...HISTORY,
  ingesting: HISTORY.processing,
  inReview: HISTORY.reviewActive,
  writing: HISTORY.outputRunning,
  done: HISTORY.completedFinal,
};

describe('runPhase: one place that says where a run is', () => {
  it.each<[keyof typeof H, RunPhase, string | null]>([
    ['awaitingUpload', 'awaiting_upload', null],
    ['rawQueued', 'ingesting', null],
    ['ingesting', 'ingesting', null],
    ['parsed', 'preparing_review', null],
    ['inReview', 'in_review', T0],
    ['inReview', 'expired', AFTER_EXPIRY],
    ['approved', 'producing_output', null],
    ['writing', 'producing_output', null],
    ['done', 'done', null],
    ['canceled', 'canceled', AFTER_EXPIRY],
    ['failed', 'failed', null],
  ])('%s -> %s (now: %s)', (history, phase, now) => {
    expect(runPhase(fold(H[history])!, now ? new Date(now) : undefined)).toBe(phase);
  });
});

describe('the decider asks for a phase (given / when / then)', () => {
  const parse = parsed.data;
  const progress = (n: number) => ({ type: 'RecordIngestionProgress' as const, processed_rows: n });
  const review = {
    type: 'PrepareReview' as const,
    mapping_rule: prepared.data.mapping_rule,
    review_expires_at: prepared.data.review_expires_at,
    at: T0,
  };

  it('ingestion records progress and the parse only while ingesting', () => {
    given(H.ingesting)
      .when(progress(5))
      .then([{ type: 'IngestionProgressed', data: { processed_rows: 5 } }]);
    given(H.ingesting)
      .when({ type: 'RecordParse', parse })
      .then([{ type: 'SourceParsed', data: parse }]);
    given(H.awaitingUpload).when(progress(5)).refused('ingestion_not_running');
    given(H.rawQueued).when({ type: 'RecordParse', parse }).refused('ingestion_not_running');
    given(H.parsed).when({ type: 'RecordParse', parse }).refused('source_already_parsed');
    given(H.inReview).when({ type: 'RecordParse', parse }).refused('ingestion_not_running');
  });

  it('the review is prepared once, after the parse', () => {
    given(H.parsed)
      .when(review)
      .then([
        {
          type: 'ReviewPrepared',
          data: {
            mapping_rule: prepared.data.mapping_rule,
            mapping_origin: 'heuristic',
            review_expires_at: prepared.data.review_expires_at,
            prepared_at: T0,
          },
        },
      ]);
    given(H.ingesting).when(review).refused('review_not_preparable');
    given(H.inReview).when(review).refused('review_not_preparable');
  });

  it('the output starts once, then records progress and completes only while being written', () => {
    given(H.approved)
      .when({ type: 'StartOutput', at: T0 })
      .then([{ type: 'OutputStarted', data: { started_at: T0 } }]);
    given(H.writing).when({ type: 'StartOutput', at: T0 }).refused('output_not_queued');
    given(H.writing)
      .when({ type: 'RecordOutputProgress', processed_rows: 3 })
      .then([{ type: 'OutputProgressed', data: { processed_rows: 3 } }]);
    given(H.approved).when({ type: 'CompleteOutput', output: produced.data }).refused('output_not_running');
    given(H.done).when({ type: 'CompleteOutput', output: produced.data }).refused('output_not_running');
    given(H.writing)
      .when({ type: 'CompleteOutput', output: produced.data })
      .then([{ type: 'OutputProduced', data: produced.data }]);
  });
});
