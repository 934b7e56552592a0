import type { RunCreated, RunEvent } from '@app/contracts';
import { CommandRefused } from '../errors/domain-error';
import { MAPPING_REMEMBERED_NOTICE } from '../mapping/remembered-mapping';
import type { RunCommand } from './commands';
import { rowNumberingOf } from '../fields/rows-left-out';
import { decide } from './decide';
import { evolve } from './evolve';
import { effectiveReviewState, filesPurgeDue, isReviewWindowOver, isTerminal, type RunFold, type RunState } from './run-state';

import {
  T0,
  LATER,
  AFTER_EXPIRY,
  created,
  uploaded,
  parsed,
  mapping,
  edited,
  scheduled,
  attempt,
  attempted,
  produced,
  failed,
  DAY,
  purged,
  fold,
  HISTORY as given,
} from '../testing/run-history.fixtures';

/** The code and message a command is refused with by the decider, or null when it is taken. */
function refusalOf(command: RunCommand, state: RunState): [code: string, message: string] | null {
  try {
    decide(command, state);
  } catch (err) {
    if (err instanceof CommandRefused) return [err.code, err.message];
    throw err;
  }
  return null;
}

/** Another sheet of a workbook chosen in the review (the first row read before it is another sheet's). */
const sheetChosen: RunEvent = {
  type: 'SheetChosen',
  data: {
    sheet: 'Second',
    source_headers: ['E-mail', 'Full name'],
    input_has_header: true,
    total_rows: 2,
    mapping_rule: mapping,
    chosen_at: T0,
  },
};

const fail = { type: 'FailRun', error: failed.type === 'RunFailed' ? failed.data.error : (null as never), at: T0 } as const;

describe("run decider: the spec's stated moves", () => {
  const moves: [string, RunEvent[], RunCommand, string[], Record<string, unknown>][] = [
    [
      'POST /file creates awaiting_upload in stage review',
      given.nothing,
      { type: 'CreateRun', data: created().data as RunCreated },
      ['RunCreated'],
      { status: 'awaiting_upload', stage: 'review', review_state: null },
    ],
    [
      'POST /raw creates queued in stage review',
      given.nothing,
      { type: 'CreateRun', data: created({ input_source: 'raw' }).data as RunCreated },
      ['RunCreated'],
      { status: 'queued', stage: 'review' },
    ],
    [
      'upload completes: processing starts',
      given.awaitingUpload,
      { type: 'CompleteUpload', size_bytes: 5, at: LATER },
      ['SourceUploaded'],
      { status: 'processing', started_at: LATER },
    ],
    [
      'ingestion records progress',
      given.processing,
      { type: 'RecordIngestionProgress', processed_rows: 1 },
      ['IngestionProgressed'],
      { processed_rows: 1 },
    ],
    [
      'ingestion records the parsed source',
      given.processing,
      { type: 'RecordParse', parse: parsed.data },
      ['SourceParsed'],
      { total_rows: 2, source_headers: ['E-mail', 'Full name'], input_has_header: true },
    ],
    [
      'review prepared: completed, review active',
      given.parsed,
      { type: 'PrepareReview', mapping_rule: mapping, review_expires_at: '2026-01-08T00:00:00.000Z', at: T0 },
      ['ReviewPrepared'],
      { status: 'completed', review_state: 'active', mapping_rule: mapping },
    ],
    [
      'reviewer edits the mapping',
      given.reviewActive,
      { type: 'EditMapping', mapping_rule: { email: 'Full name' }, at: T0 },
      ['MappingEdited'],
      { mapping_rule: { email: 'Full name', name: null }, mapping_version: 2 },
    ],
    [
      'a finished run owes its webhook: notification pending',
      [...given.completedFinal],
      { type: 'ScheduleWebhook', delivery: (scheduled as any).data },
      ['WebhookScheduled'],
      { notification_status: 'pending', webhook_due_at: T0 },
    ],
    [
      'a failed attempt with attempts left stays pending',
      [...given.completedFinal, scheduled],
      { type: 'RecordWebhookAttempt', attempt: attempt(1, 'failed', LATER) },
      ['WebhookAttempted'],
      { notification_status: 'pending', webhook_due_at: LATER },
    ],
    [
      'a delivered attempt settles it',
      [...given.completedFinal, scheduled, attempted(1, 'failed', LATER)],
      { type: 'RecordWebhookAttempt', attempt: attempt(2, 'delivered', null) },
      ['WebhookAttempted'],
      { notification_status: 'delivered', webhook_due_at: null },
    ],
    [
      'the last failed attempt gives up',
      [...given.completedFinal, scheduled, attempted(1, 'failed', LATER), attempted(2, 'failed', LATER)],
      { type: 'RecordWebhookAttempt', attempt: attempt(3, 'failed', null) },
      ['WebhookAttempted'],
      { notification_status: 'failed', webhook_due_at: null },
    ],
    [
      "a canceled review's webhook leaves notification_status alone",
      [...given.canceled],
      { type: 'ScheduleWebhook', delivery: { delivery_id: 'd2', event: 'transformation.review.canceled', url: 'https://h', due_at: T0 } },
      ['WebhookScheduled'],
      { notification_status: null, webhook_due_at: T0 },
    ],
    [
      'reviewer fixes values: the fix is kept in force',
      given.reviewActive,
      { type: 'FixValues', fix_id: 'f1', field: 'email', fix: { kind: 'normalise', normaliser: 'trim' }, at: T0 },
      ['ValuesFixed'],
      { value_fixes: [{ fix_id: 'f1', field: 'email', fix: { kind: 'normalise', normaliser: 'trim' }, fixed_at: T0 }] },
    ],
    [
      'reviewer undoes the latest fix',
      [
        ...given.reviewActive,
        {
          type: 'ValuesFixed',
          data: { fix_id: 'f1', field: 'email', fix: { kind: 'normalise', normaliser: 'trim' }, fixed_by: 'review_link', fixed_at: T0 },
        },
        {
          type: 'ValuesFixed',
          data: { fix_id: 'f2', field: 'name', fix: { kind: 'normalise', normaliser: 'trim' }, fixed_by: 'review_link', fixed_at: T0 },
        },
      ],
      { type: 'UndoValueFix', at: T0 },
      ['ValueFixUndone'],
      { value_fixes: [{ fix_id: 'f1', field: 'email', fix: { kind: 'normalise', normaliser: 'trim' }, fixed_at: T0 }] },
    ],
    [
      'reviewer says the first row is no header: headers column_N, one row more, each field keeps the column in its place',
      given.reviewActive,
      { type: 'ChooseHeaderRow', input_has_header: false, first_row: ['E-mail', 'Full name'], at: T0 },
      ['HeaderRowChosen'],
      {
        input_has_header: false,
        source_headers: ['column_1', 'column_2'],
        total_rows: 3,
        mapping_version: 2,
        mapping_rule: { email: 'column_1', name: null },
      },
    ],
    [
      'reviewer picks a header row under a title whose columns were approved before: the columns as then, not by place',
      given.reviewActive,
      {
        type: 'ChooseHeaderRow',
        input_has_header: true,
        first_row: ['Who', 'Mail'],
        rows_above_header: ['Customer export'],
        remembered_mapping: { email: 'Mail', name: 'Who' },
        at: T0,
      },
      ['HeaderRowChosen'],
      {
        source_headers: ['Who', 'Mail'],
        rows_above_header: ['Customer export'],
        mapping_rule: { email: 'Mail', name: 'Who' },
        review_notices: [{ code: 'mapping_remembered' }],
      },
    ],
    [
      'a header row picked by hand after a remembered mapping: no longer said to be remembered, other notices kept',
      given.reviewActive.map((e) =>
        e.type === 'ReviewPrepared'
          ? {
              ...e,
              data: { ...e.data, mapping_origin: 'remembered', notices: [{ code: 'ai_note', message: 'm' }, MAPPING_REMEMBERED_NOTICE] },
            }
          : e,
      ),
      { type: 'ChooseHeaderRow', input_has_header: true, first_row: ['Who', 'Mail'], rows_above_header: ['Customer export'], at: T0 },
      ['HeaderRowChosen'],
      { source_headers: ['Who', 'Mail'], review_notices: [{ code: 'ai_note' }] },
    ],
    [
      'a remembered mapping whose column the file no longer has: that field is suggested; one left unmapped then stays so',
      given.reviewActive,
      {
        type: 'ChooseHeaderRow',
        input_has_header: true,
        first_row: ['Email', 'Name'],
        rows_above_header: ['Customer export'],
        remembered_mapping: { email: 'Mail', name: null },
        at: T0,
      },
      ['HeaderRowChosen'],
      { mapping_rule: { email: 'Email', name: null } },
    ],
    [
      'reviewer says the first row is the header of the sheet chosen since: as read from that sheet',
      [...given.reviewActive, sheetChosen],
      { type: 'ChooseHeaderRow', input_has_header: false, first_row: ['E-mail', 'Full name'], sheet: 'Second', at: T0 },
      ['HeaderRowChosen'],
      { input_has_header: false, sheet: 'Second' },
    ],
    [
      'reviewer approves leaving rows with problems out',
      given.reviewActive,
      { type: 'ApproveReview', mapping_rule: mapping, at: T0, rows_with_problems: 'exclude' },
      ['ReviewApproved'],
      { review_state: 'approved', problem_rows_choice: 'exclude' },
    ],
    [
      'reviewer edits the mapping version they saw',
      given.reviewActive,
      { type: 'EditMapping', mapping_rule: { email: 'Full name' }, at: T0, expected_mapping_version: 1 },
      ['MappingEdited'],
      { mapping_version: 2 },
    ],
    [
      'reviewer approves the mapping version they saw',
      [...given.reviewActive, edited],
      { type: 'ApproveReview', mapping_rule: mapping, at: T0, expected_mapping_version: 2 },
      ['ReviewApproved'],
      { review_state: 'approved' },
    ],
    [
      "reviewer approves without naming a mapping: the run's latest, as the stream has it",
      [...given.reviewActive, edited],
      { type: 'ApproveReview', mapping_rule: null, at: T0 },
      ['ReviewApproved'],
      { review_state: 'approved', mapping_rule: edited.data.mapping_rule },
    ],
    [
      'reviewer approves: stage final, approved',
      given.reviewActive,
      { type: 'ApproveReview', mapping_rule: { email: 'E-mail', name: 'Full name' }, at: LATER },
      ['ReviewApproved'],
      {
        stage: 'final',
        status: 'queued',
        review_state: 'approved',
        review_approved_at: LATER,
        mapping_rule: { email: 'E-mail', name: 'Full name' },
      },
    ],
    [
      'reviewer cancels: canceled, read-only',
      given.reviewActive,
      { type: 'CancelReview', at: LATER },
      ['ReviewCanceled'],
      { review_state: 'canceled', review_canceled_at: LATER, status: 'completed', stage: 'review' },
    ],
    [
      'final output starts',
      given.approved,
      { type: 'StartOutput', at: T0 },
      ['OutputStarted'],
      { status: 'processing', processed_rows: 0 },
    ],
    [
      'final output progresses',
      given.outputRunning,
      { type: 'RecordOutputProgress', processed_rows: 1 },
      ['OutputProgressed'],
      { processed_rows: 1 },
    ],
    [
      'final output succeeds: completed',
      given.outputRunning,
      { type: 'CompleteOutput', output: produced.data },
      ['OutputProduced'],
      { status: 'completed', stage: 'final', output_key: 'k', completed_at: T0, file_retention_until: LATER },
    ],
    ['terminal failure while awaiting upload', given.awaitingUpload, fail, ['RunFailed'], { status: 'failed', failed_at: T0 }],
    ['terminal failure while processing', given.processing, fail, ['RunFailed'], { status: 'failed' }],
    ['terminal failure of the final output', given.outputRunning, fail, ['RunFailed'], { status: 'failed', stage: 'final' }],
    ['terminal failure of a queued raw run', given.rawQueued, fail, ['RunFailed'], { status: 'failed' }],
    [
      'the upload window ends with no file: the run fails with upload_expired',
      given.awaitingUpload,
      { type: 'ExpireUpload', at: AFTER_EXPIRY },
      ['RunFailed'],
      {
        status: 'failed',
        stage: 'review',
        failed_at: AFTER_EXPIRY,
        error: { code: 'upload_expired', type: 'timeout', stage: 'upload', retryable: true, context: [] },
      },
    ],
    [
      'the output passed file_retention_until: source and output are purged',
      given.completedFinal,
      { type: 'PurgeFiles', retention_seconds: DAY, at: AFTER_EXPIRY },
      ['FilesPurged'],
      { files_purged_at: AFTER_EXPIRY, status: 'completed', stage: 'final' },
    ],
    [
      'a canceled review, retention later: purged',
      given.canceled,
      { type: 'PurgeFiles', retention_seconds: DAY, at: AFTER_EXPIRY },
      ['FilesPurged'],
      { files_purged_at: AFTER_EXPIRY, review_state: 'canceled' },
    ],
    [
      'an expired review, retention later: purged',
      given.reviewActive,
      { type: 'PurgeFiles', retention_seconds: DAY, at: AFTER_EXPIRY },
      ['FilesPurged'],
      { files_purged_at: AFTER_EXPIRY },
    ],
    [
      'a failed run, retention later: purged',
      given.failed,
      { type: 'PurgeFiles', retention_seconds: DAY, at: AFTER_EXPIRY },
      ['FilesPurged'],
      { files_purged_at: AFTER_EXPIRY, status: 'failed' },
    ],
  ];

  it.each(moves)('%s', (_name, history, command, expectedTypes, expectedState) => {
    const state = fold(history);
    const events = decide(command, state);
    expect(events.map((e) => e.type)).toEqual(expectedTypes);
    const after = events.reduce<RunFold>((s, e, i) => evolve(s, e, history.length + i, LATER), state);
    expect(after).toMatchObject(expectedState);
  });
});

describe('run decider: refused moves', () => {
  const refused: [string, RunEvent[], RunCommand, string][] = [
    ['create twice', given.awaitingUpload, { type: 'CreateRun', data: created().data as RunCreated }, 'run_exists'],
    ['any command on a missing run', given.nothing, { type: 'CancelReview', at: T0 }, 'run_not_found'],
    ['upload twice', given.processing, { type: 'CompleteUpload', size_bytes: 1, at: T0 }, 'upload_already_completed'],
    ['upload to a raw run', given.rawQueued, { type: 'CompleteUpload', size_bytes: 1, at: T0 }, 'upload_not_expected'],
    ['upload to a failed run', [created(), failed], { type: 'CompleteUpload', size_bytes: 1, at: T0 }, 'run_failed'],
    ['parse twice', given.parsed, { type: 'RecordParse', parse: parsed.data }, 'source_already_parsed'],
    [
      'prepare before parse',
      given.processing,
      { type: 'PrepareReview', mapping_rule: mapping, review_expires_at: LATER, at: T0 },
      'review_not_preparable',
    ],
    [
      'prepare with an unknown header',
      given.parsed,
      { type: 'PrepareReview', mapping_rule: { email: 'Nope' }, review_expires_at: LATER, at: T0 },
      'invalid_mapping',
    ],
    [
      'a header choice read from the sheet before another was chosen',
      [...given.reviewActive, sheetChosen],
      { type: 'ChooseHeaderRow', input_has_header: false, first_row: ['x', 'y'], sheet: null, at: T0 },
      'mapping_conflict',
    ],
    ['approve before the review is ready', given.processing, { type: 'ApproveReview', mapping_rule: mapping, at: T0 }, 'review_not_ready'],
    ['approve twice', given.approved, { type: 'ApproveReview', mapping_rule: mapping, at: T0 }, 'review_already_approved'],
    ['approve a canceled review', given.canceled, { type: 'ApproveReview', mapping_rule: mapping, at: T0 }, 'review_canceled'],
    ['approve an expired review', given.reviewActive, { type: 'ApproveReview', mapping_rule: mapping, at: AFTER_EXPIRY }, 'review_expired'],
    ['approve a failed run', [...given.reviewActive, failed], { type: 'ApproveReview', mapping_rule: mapping, at: T0 }, 'run_failed'],
    [
      'approve a mapping to an unknown field',
      given.reviewActive,
      { type: 'ApproveReview', mapping_rule: { phone: 'E-mail' }, at: T0 },
      'invalid_mapping',
    ],
    ['cancel twice', given.canceled, { type: 'CancelReview', at: T0 }, 'review_canceled'],
    ['cancel an approved review', given.approved, { type: 'CancelReview', at: T0 }, 'review_already_approved'],
    ['cancel an expired review', given.reviewActive, { type: 'CancelReview', at: AFTER_EXPIRY }, 'review_expired'],
    [
      'schedule the same webhook twice',
      [...given.completedFinal, scheduled],
      { type: 'ScheduleWebhook', delivery: (scheduled as any).data },
      'webhook_already_scheduled',
    ],
    [
      'record the same attempt twice',
      [...given.completedFinal, scheduled, attempted(1, 'failed', LATER)],
      { type: 'RecordWebhookAttempt', attempt: attempt(1, 'failed', LATER) },
      'webhook_attempt_recorded',
    ],
    [
      'attempt again after delivery',
      [...given.completedFinal, scheduled, attempted(1, 'delivered', null)],
      { type: 'RecordWebhookAttempt', attempt: attempt(2, 'failed', null) },
      'webhook_settled',
    ],
    [
      'attempt a webhook never scheduled',
      given.completedFinal,
      { type: 'RecordWebhookAttempt', attempt: attempt(1, 'failed', null) },
      'webhook_not_scheduled',
    ],
    [
      'edit on a stale mapping (another tab saved first)',
      [...given.reviewActive, edited],
      { type: 'EditMapping', mapping_rule: mapping, at: T0, expected_mapping_version: 1 },
      'mapping_conflict',
    ],
    [
      'approve a stale mapping (another tab saved first)',
      [...given.reviewActive, edited],
      { type: 'ApproveReview', mapping_rule: mapping, at: T0, expected_mapping_version: 1 },
      'mapping_conflict',
    ],
    [
      'fix a field the schema lacks',
      given.reviewActive,
      { type: 'FixValues', fix_id: 'f', field: 'nope', fix: { kind: 'normalise', normaliser: 'trim' }, at: T0 },
      'invalid_fix',
    ],
    ['fix with no kind', given.reviewActive, { type: 'FixValues', fix_id: 'f', field: 'email', fix: {}, at: T0 }, 'invalid_fix'],
    [
      'fix after approval',
      given.approved,
      { type: 'FixValues', fix_id: 'f', field: 'email', fix: { kind: 'normalise', normaliser: 'trim' }, at: T0 },
      'review_already_approved',
    ],
    ['undo with no fix', given.reviewActive, { type: 'UndoValueFix', at: T0 }, 'nothing_to_undo'],
    [
      'approve over fixes the page did not show (another tab fixed a value)',
      [
        ...given.reviewActive,
        {
          type: 'ValuesFixed',
          data: { fix_id: 'f1', field: 'email', fix: { kind: 'normalise', normaliser: 'trim' }, fixed_by: 'review_link', fixed_at: T0 },
        },
      ],
      { type: 'ApproveReview', mapping_rule: mapping, at: T0, expected_fixes: '0:' },
      'fixes_conflict',
    ],
    ['edit a canceled review', given.canceled, { type: 'EditMapping', mapping_rule: mapping, at: T0 }, 'review_canceled'],
    ['edit an expired review', given.reviewActive, { type: 'EditMapping', mapping_rule: mapping, at: AFTER_EXPIRY }, 'review_expired'],
    ['start output twice', given.outputRunning, { type: 'StartOutput', at: T0 }, 'output_not_queued'],
    ['complete output that never started', given.approved, { type: 'CompleteOutput', output: produced.data }, 'output_not_running'],
    ['fail a failed run', given.failed, fail, 'run_failed'],
    ['fail a completed final run', given.completedFinal, fail, 'run_terminal'],
    ['fail a canceled run', given.canceled, fail, 'run_terminal'],
    ['expire the upload before its deadline', given.awaitingUpload, { type: 'ExpireUpload', at: T0 }, 'upload_window_open'],
    ['expire the upload after the file came', given.processing, { type: 'ExpireUpload', at: AFTER_EXPIRY }, 'upload_already_completed'],
    ['expire the upload twice', given.uploadExpired, { type: 'ExpireUpload', at: AFTER_EXPIRY }, 'run_failed'],
    ['expire the upload of a raw run', given.rawQueued, { type: 'ExpireUpload', at: AFTER_EXPIRY }, 'upload_not_expected'],
    ['upload after the upload expired', given.uploadExpired, { type: 'CompleteUpload', size_bytes: 1, at: AFTER_EXPIRY }, 'run_failed'],
    [
      'purge twice',
      [...given.completedFinal, purged('output_retention', ['runs/r1/source', 'k'])],
      { type: 'PurgeFiles', retention_seconds: DAY, at: AFTER_EXPIRY },
      'files_already_purged',
    ],
    [
      'purge an output before file_retention_until',
      given.completedFinal,
      { type: 'PurgeFiles', retention_seconds: 0, at: T0 },
      'files_retained',
    ],
    [
      'purge a canceled review before its retention passed',
      given.canceled,
      { type: 'PurgeFiles', retention_seconds: 60 * DAY, at: AFTER_EXPIRY },
      'files_retained',
    ],
    ['purge an open review', given.reviewActive, { type: 'PurgeFiles', retention_seconds: 0, at: LATER }, 'files_retained'],
    ['purge while the output is queued', given.approved, { type: 'PurgeFiles', retention_seconds: 0, at: AFTER_EXPIRY }, 'files_in_use'],
    ['purge while ingesting', given.processing, { type: 'PurgeFiles', retention_seconds: 0, at: AFTER_EXPIRY }, 'files_in_use'],
    ['purge a missing run', given.nothing, { type: 'PurgeFiles', retention_seconds: 0, at: AFTER_EXPIRY }, 'run_not_found'],
  ];

  it.each(refused)('%s', (_name, history, command, code) => {
    const state = fold(history);
    let error: unknown;
    try {
      decide(command, state);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CommandRefused);
    expect((error as CommandRefused).code).toBe(code);
  });
});

describe("the review's notice that the columns were approved before", () => {
  const rememberedReview = given.reviewActive.map((e) =>
    e.type === 'ReviewPrepared'
      ? { ...e, data: { ...e.data, mapping_origin: 'remembered' as const, notices: [MAPPING_REMEMBERED_NOTICE] } }
      : e,
  );
  const headerChosen = (origin?: 'remembered' | 'suggested'): RunEvent => ({
    type: 'HeaderRowChosen',
    data: {
      input_has_header: false,
      source_headers: ['column_1', 'column_2'],
      total_rows: 3,
      mapping_rule: mapping,
      chosen_at: T0,
      ...(origin ? { mapping_origin: origin } : {}),
    },
  });
  const codes = (events: RunEvent[]) => fold(events)!.review_notices.map((n) => n.code);

  it('goes with a header row chosen by place, comes back with one remembered, and goes with another sheet', () => {
    expect(codes([...rememberedReview, headerChosen('suggested')])).toEqual([]);
    expect(codes([...rememberedReview, headerChosen('suggested'), headerChosen('remembered')])).toEqual(['mapping_remembered']);
    expect(codes([...rememberedReview, sheetChosen])).toEqual([]);
  });
  it('stays as it was folded under a header row chosen before the events said where the columns came from', () => {
    expect(codes([...rememberedReview, headerChosen()])).toEqual(['mapping_remembered']);
    expect(codes([...given.reviewActive, headerChosen()])).toEqual([]);
  });
});

describe('derived states', () => {
  it('an active review past its deadline reads as expired and terminal', () => {
    const run = fold(given.reviewActive)!;
    expect(effectiveReviewState(run, new Date(LATER))).toBe('active');
    expect(isTerminal(run, new Date(LATER))).toBe(false);
    expect(effectiveReviewState(run, new Date(AFTER_EXPIRY))).toBe('expired');
    expect(isTerminal(run, new Date(AFTER_EXPIRY))).toBe(true);
  });
  it.each([
    ['failed', given.failed, true],
    ['completed final', given.completedFinal, true],
    ['canceled', given.canceled, true],
    ['review active', given.reviewActive, false],
    ['final queued', given.approved, false],
  ] as const)('terminal for %s is %s', (_n, history, terminal) => {
    expect(isTerminal(fold(history)!, new Date(LATER))).toBe(terminal);
  });
});

describe('retention: what is purged, when and why', () => {
  const purge = (history: RunEvent[], retention = DAY) => {
    const [event] = decide({ type: 'PurgeFiles', retention_seconds: retention, at: AFTER_EXPIRY }, fold(history));
    return event.data;
  };

  it('an output run purges its source, its row index and its output, at file_retention_until', () => {
    expect(filesPurgeDue(fold(given.completedFinal)!, DAY)).toEqual({ due_at: LATER, reason: 'output_retention' });
    expect(purge(given.completedFinal)).toEqual({
      keys: ['runs/r1/source', 'runs/r1/source.row-index', 'k'],
      reason: 'output_retention',
      purged_at: AFTER_EXPIRY,
    });
  });

  it('a raw run purges its text and its extracted rows', () => {
    expect(purge(given.rawCanceled)).toEqual({
      keys: ['runs/r1/source', 'runs/r1/rows.csv'],
      reason: 'review_canceled',
      purged_at: AFTER_EXPIRY,
    });
  });

  it('closed runs keep their files the retention after they closed', () => {
    expect(filesPurgeDue(fold(given.canceled)!, DAY)).toEqual({ due_at: LATER, reason: 'review_canceled' });
    expect(filesPurgeDue(fold(given.failed)!, DAY)).toEqual({ due_at: LATER, reason: 'run_failed' });
    expect(filesPurgeDue(fold(given.reviewActive)!, DAY)).toEqual({ due_at: '2026-01-09T00:00:00.000Z', reason: 'review_expired' });
    expect(purge(given.uploadExpired)).toMatchObject({ keys: ['runs/r1/source'], reason: 'run_failed' });
  });

  it('runs that still need their files, and purged runs, plan nothing', () => {
    for (const history of [given.awaitingUpload, given.processing, given.parsed, given.approved, given.outputRunning])
      expect(filesPurgeDue(fold(history)!, 0)).toBeNull();
    expect(filesPurgeDue(fold([...given.completedFinal, purged('output_retention', ['k'])])!, 0)).toBeNull();
  });
});

describe('folding old and unknown events', () => {
  it('an event type this code does not know moves the revision and changes nothing else', () => {
    const unknown = { type: 'SomethingFromTheFuture', data: { x: 1 } } as unknown as RunEvent;
    const withUnknown = fold([created(), unknown, uploaded])!;
    const without = fold([created(), uploaded])!;
    expect(withUnknown.revision).toBe(2);
    expect({ ...withUnknown, revision: 0 }).toEqual({ ...without, revision: 0 });
  });

  it('a document folded before files_purged_at existed reads as not purged', () => {
    const { files_purged_at: _gone, ...old } = fold(given.completedFinal)!;
    expect(filesPurgeDue(old, DAY)).toEqual({ due_at: LATER, reason: 'output_retention' });
    expect(decide({ type: 'PurgeFiles', retention_seconds: DAY, at: AFTER_EXPIRY }, old).map((e) => e.type)).toEqual(['FilesPurged']);
  });
});

describe('the review window', () => {
  it('closes at review_expires_at whatever the reviewer did', () => {
    for (const history of [given.reviewActive, given.approved, given.canceled, given.completedFinal]) {
      expect(isReviewWindowOver(fold(history)!, new Date(LATER))).toBe(false);
      expect(isReviewWindowOver(fold(history)!, new Date(AFTER_EXPIRY))).toBe(true);
    }
    expect(isReviewWindowOver(fold(given.processing)!, new Date(AFTER_EXPIRY))).toBe(false);
  });
});

describe('a cell edit on a value the cell no longer reads', () => {
  const run = fold(given.reviewActive)!;
  const cell = (before: string) => ({ kind: 'cell', row: 1, before, after: 'b@x.org' });
  const read = (value: string, over: { shown?: string; mapping_version?: number; fixes_key?: string } = {}) => ({
    value,
    shown: value,
    mapping_version: run.mapping_version,
    fixes_key: '0:',
    ...over,
  });
  const fix = (fixOf: unknown, cellRead?: ReturnType<typeof read>): RunCommand => ({
    type: 'FixValues',
    fix_id: 'f1',
    field: 'email',
    fix: fixOf,
    at: T0,
    ...(cellRead ? { cell_read: cellRead } : {}),
  });
  const refusal = (command: RunCommand): [code: string, message: string] | null => refusalOf(command, run);

  it('is refused with fixes_conflict naming the row, the field and what the cell reads; nothing is recorded', () => {
    expect(refusal(fix(cell('a@x.org'), read('c@x.org')))).toEqual([
      'fixes_conflict',
      'Row 1 of "email" reads "c@x.org", not "a@x.org" (the fix\'s before); nothing was fixed. Load the rows again and fix the value as it reads now.',
    ]);
    // A long value is not echoed whole.
    const [, message] = refusal(fix(cell('a'), read('x'.repeat(5000))))!;
    expect(message).toContain(`"${'x'.repeat(100)}…"`);
    expect(message.length).toBeLessThan(400);
  });

  it('is recorded when the cell reads its before (a blank cell reads "")', () => {
    expect(decide(fix(cell('a@x.org'), read('a@x.org')), run).map((e) => e.type)).toEqual(['ValuesFixed']);
    expect(decide(fix(cell(''), read('  ')), run).map((e) => e.type)).toEqual(['ValuesFixed']);
    // The rule of the fixes themselves: an edit made on blanks applies to those blanks alone.
    expect(refusal(fix(cell(' '), read('')))?.[0]).toBe('fixes_conflict');
  });

  it('takes the value as the review shows it for its before, and records the value the fixes compare', () => {
    const events = decide(fix(cell('150'), read('150.0', { shown: '150' })), run);
    expect(events).toMatchObject([{ type: 'ValuesFixed', data: { fix: { kind: 'cell', row: 1, before: '150.0', after: 'b@x.org' } } }]);
    expect(refusal(fix(cell('151'), read('150.0', { shown: '150' })))?.[1]).toContain('reads "150", not "151"');
  });

  it('is refused when the mapping or the fixes changed after the cell was read', () => {
    expect(refusal(fix(cell('a@x.org'), read('a@x.org', { mapping_version: run.mapping_version - 1 })))?.[0]).toBe('fixes_conflict');
    expect(refusal(fix(cell('a@x.org'), read('a@x.org', { fixes_key: '1:f0' })))?.[0]).toBe('fixes_conflict');
  });

  it('is recorded when fixes of other rows or fields were made after the read (two cells saved at once), refused after one of its own cell', () => {
    const fixed = (field: string, fix: object, id: string) =>
      ({ fix_id: id, field, fix, fixed_at: T0 }) as NonNullable<RunState['value_fixes']>[number];
    const others = {
      ...run,
      value_fixes: [
        fixed('email', { kind: 'cell', row: 2, before: 'x', after: 'y' }, 'f1'),
        fixed('first_name', { kind: 'normalise', normaliser: 'trim' }, 'f2'),
      ],
    };
    expect(decide(fix(cell('a@x.org'), read('a@x.org')), others).map((e) => e.type)).toEqual(['ValuesFixed']);
    const own = {
      ...others,
      value_fixes: [...others.value_fixes, fixed('email', { kind: 'cell', row: 1, before: 'a@x.org', after: 'z@x.org' }, 'f3')],
    };
    expect(refusalOf(fix(cell('a@x.org'), read('a@x.org')), own)?.[0]).toBe('fixes_conflict');
    const everyRow = { ...others, value_fixes: [...others.value_fixes, fixed('email', { kind: 'normalise', normaliser: 'trim' }, 'f4')] };
    expect(refusalOf(fix(cell('a@x.org'), read('a@x.org')), everyRow)?.[0]).toBe('fixes_conflict');
  });

  it('refuses what it refused before first (an invalid fix, a closed review), and leaves other fixes and edits without a read alone', () => {
    expect(refusal(fix({ kind: 'cell', row: 0, before: 'x', after: 'y' }, read('c')))?.[0]).toBe('invalid_fix');
    expect(() => decide(fix(cell('a@x.org'), read('c@x.org')), fold(given.approved))).toThrow('The review was already approved.');
    // Without a read (a caller that sends none), a cell edit is recorded as before: it applies only while the cell reads its before.
    expect(decide(fix(cell('a@x.org')), run).map((e) => e.type)).toEqual(['ValuesFixed']);
    // A find and replace, a normaliser and a picklist never carry a read: none is compared with anything.
    expect(decide(fix({ kind: 'replace', find: 'zzz', replace: 'y' }, read('c')), run).map((e) => e.type)).toEqual(['ValuesFixed']);
    expect(decide(fix({ kind: 'normalise', normaliser: 'trim' }, read('c')), run).map((e) => e.type)).toEqual(['ValuesFixed']);
  });
});

describe('a row left out and put back (fixes of a whole row)', () => {
  const run = fold(given.reviewActive)!;
  const numbering = rowNumberingOf(run);
  const rowFix = (fixOf: unknown, more: { field?: string; expected_mapping_version?: number } = {}): RunCommand => ({
    type: 'FixValues',
    fix_id: 'r1',
    field: '',
    fix: fixOf,
    at: T0,
    ...more,
  });
  const applied = (state: RunState, fixOf: unknown): RunState =>
    decide(rowFix(fixOf), state).reduce((s, e) => evolve(s, e, s.revision + 1, T0), state);

  it("records the row under the rows' numbering now, with no field, and nothing more when it is left out already", () => {
    expect(decide(rowFix({ kind: 'leave_out', row: 1 }), run)).toEqual([
      {
        type: 'ValuesFixed',
        data: { fix_id: 'r1', field: '', fix: { kind: 'leave_out', row: 1, numbering }, fixed_by: 'review_link', fixed_at: T0 },
      },
    ]);
    const out = applied(run, { kind: 'leave_out', row: 1 });
    expect(decide(rowFix({ kind: 'leave_out', row: 1 }), out)).toEqual([]);
    // Under another header row, row 1 is another row: it is left out anew.
    const otherNumbering = { ...out, input_has_header: !out.input_has_header };
    expect(decide(rowFix({ kind: 'leave_out', row: 1 }), otherNumbering)).toHaveLength(1);
  });

  it('puts back only a row left out, and the undo takes back either like any other fix', () => {
    expect(decide(rowFix({ kind: 'put_back', row: 1 }), run)).toEqual([]);
    const out = applied(run, { kind: 'leave_out', row: 1 });
    expect(decide(rowFix({ kind: 'put_back', row: 1 }), out)).toMatchObject([
      { type: 'ValuesFixed', data: { field: '', fix: { kind: 'put_back', row: 1, numbering } } },
    ]);
    expect(decide({ type: 'UndoValueFix', at: T0 }, out)).toMatchObject([{ type: 'ValueFixUndone', data: { fix_id: 'r1' } }]);
  });

  it("refuses a page's row after another header row or sheet was chosen, a row the file lacks, and a kind of no row", () => {
    expect(refusalOf(rowFix({ kind: 'leave_out', row: 1 }, { expected_mapping_version: run.mapping_version - 1 }), run)?.[0]).toBe(
      'mapping_conflict',
    );
    expect(decide(rowFix({ kind: 'leave_out', row: 1 }, { expected_mapping_version: run.mapping_version }), run)).toHaveLength(1);
    expect(refusalOf(rowFix({ kind: 'leave_out', row: 0 }), run)?.[0]).toBe('invalid_fix');
    expect(refusalOf(rowFix({ kind: 'put_back', row: run.total_rows! + 1 }), run)?.[1]).toContain(`from 1 to ${run.total_rows}`);
    expect(refusalOf(rowFix({ kind: 'replace', find: 'a', replace: 'b' }), run)).toEqual([
      'invalid_fix',
      'A fix without a field is of whole rows: kind must be "leave_out" or "put_back" (with a row), or "leave_out_hidden" or "put_back_hidden".',
    ]);
    // With a field, a row's kind is no fix of values.
    expect(refusalOf(rowFix({ kind: 'leave_out', row: 1 }, { field: 'email' }), run)?.[0]).toBe('invalid_fix');
    expect(() => decide(rowFix({ kind: 'leave_out', row: 1 }), fold(given.approved))).toThrow('The review was already approved.');
  });
});
