import type { RunEvent } from '@app/contracts';
import { given } from '../testing/given-when-then';
import { HISTORY, LATER, T0, attempted, fold, purged, scheduled } from '../testing/run-history.fixtures';

// Before the output's retention ends (LATER): a finished webhook can still be sent then.
const AT = '2026-01-01T10:00:00.000Z';
const resend = { type: 'ResendWebhook', delivery_id: 'd1', requested_by: 'member-1', at: AT } as const;
const requested: RunEvent = {
  type: 'WebhookResendRequested',
  data: { delivery_id: 'd1', event: 'transformation.finished', requested_at: AT, requested_by: 'member-1' },
};
const finished = [...HISTORY.completedFinal, scheduled];

describe('run decider: sending a webhook again', () => {
  it('a delivered webhook can be sent again', () => {
    given([...finished, attempted(1, 'delivered', null)])
      .when(resend)
      .then([requested]);
  });

  it('a webhook that was given up can be sent again', () => {
    given([...finished, attempted(1, 'failed', LATER), attempted(2, 'failed', LATER), attempted(3, 'failed', null)])
      .when(resend)
      .then([requested]);
  });

  it('a pending delivery (its next attempt already planned) is refused: delivery_pending', () => {
    given([...finished, attempted(1, 'failed', LATER)])
      .when(resend)
      .refused('delivery_pending');
    given(finished).when(resend).refused('delivery_pending');
  });

  it('a resend already requested and not yet attempted is pending too', () => {
    given([...finished, attempted(1, 'delivered', null), requested])
      .when(resend)
      .refused('delivery_pending');
  });

  it("a finished webhook is refused once the run's output is gone (it carries its download link): files_deleted", () => {
    // The output is kept until LATER (the fixtures' OutputProduced): asked after it, or once the files were purged.
    given([...finished, attempted(1, 'delivered', null)])
      .when({ ...resend, at: '2026-01-03T00:00:00.000Z' })
      .refused('files_deleted');
    given([...finished, attempted(1, 'delivered', null), purged('output_retention', ['k'])])
      .when(resend)
      .refused('files_deleted');
  });

  it('an unknown delivery id is refused: webhook_not_scheduled', () => {
    given([...finished, attempted(1, 'delivered', null)])
      .when({ ...resend, delivery_id: 'nope' })
      .refused('webhook_not_scheduled');
    given(HISTORY.completedFinal).when(resend).refused('webhook_not_scheduled');
  });

  it('a run that does not exist is refused', () => {
    given([]).when(resend).refused('run_not_found');
  });

  it('makes the delivery pending again, due at once, with the attempt count going on', () => {
    const state = fold([...finished, attempted(1, 'failed', LATER), attempted(2, 'delivered', null), requested]);
    expect(state?.webhooks['transformation.finished']).toMatchObject({
      delivery_id: 'd1',
      url: 'https://h',
      status: 'pending',
      attempts: 2,
      next_attempt_at: AT,
      resent_at: AT,
    });
    expect(state).toMatchObject({ notification_status: 'pending', webhook_due_at: AT });
  });

  it('the next attempt records as attempt 3 and settles the delivery again', () => {
    const third = { ...attempted(3, 'delivered', null).data, attempted_at: AT } as never;
    given([...finished, attempted(1, 'failed', LATER), attempted(2, 'delivered', null), requested])
      .when({ type: 'RecordWebhookAttempt', attempt: third })
      .then([{ type: 'WebhookAttempted', data: third }]);
    const state = fold([
      ...finished,
      attempted(1, 'failed', LATER),
      attempted(2, 'delivered', null),
      requested,
      { type: 'WebhookAttempted', data: third },
    ]);
    expect(state).toMatchObject({ notification_status: 'delivered', webhook_due_at: null });
    expect(state?.webhooks['transformation.finished']).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it("a canceled review's webhook sent again leaves notification_status alone", () => {
    const canceledWebhook: RunEvent = {
      type: 'WebhookScheduled',
      data: { delivery_id: 'd2', event: 'transformation.review.canceled', url: 'https://h', due_at: T0 },
    };
    const delivered: RunEvent = {
      type: 'WebhookAttempted',
      data: { ...attempted(1, 'delivered', null).data, delivery_id: 'd2', event: 'transformation.review.canceled' } as never,
    };
    const history = [...HISTORY.canceled, canceledWebhook, delivered];
    given(history)
      .when({ ...resend, delivery_id: 'd2' })
      .then([
        {
          type: 'WebhookResendRequested',
          data: { delivery_id: 'd2', event: 'transformation.review.canceled', requested_at: AT, requested_by: 'member-1' },
        },
      ]);
    const state = fold([
      ...history,
      ...[
        {
          type: 'WebhookResendRequested',
          data: { delivery_id: 'd2', event: 'transformation.review.canceled', requested_at: AT, requested_by: 'm' },
        } as RunEvent,
      ],
    ]);
    expect(state).toMatchObject({ notification_status: null, webhook_due_at: AT });
  });
});
