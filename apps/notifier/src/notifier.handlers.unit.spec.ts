import { DIRECTORY } from '@app/directory';
import { HISTORY, T0, created, failed } from '@app/domain/testing/run-history.fixtures';
import { deterministicId } from '@app/run-commands';
import { RunEventTestBed } from '../../../test/support/run-event-test-bed';
import { NotifierHandlers } from './notifier.handlers';

describe('NotifierHandlers (given / when / then)', () => {
  let bed: RunEventTestBed;
  let orgWebhook: string | null;
  beforeEach(async () => {
    orgWebhook = 'https://hooks.example.com/org';
    bed = await RunEventTestBed.create({
      controllers: [NotifierHandlers],
      providers: [{ provide: DIRECTORY, useValue: { getOrganization: async (id: string) => ({ id, webhook_url: orgWebhook }) } }],
    });
  });

  it("given a failed run of an organization with a webhook, when RunFailed arrives, then transformation.failed is owed to the organization's URL", async () => {
    const stream = await bed.given('r1', HISTORY.failed);
    const before = new Date().toISOString();
    await bed.when('notifier', stream[2]);
    expect(await bed.decidedAfter('r1', 2)).toEqual([
      {
        type: 'WebhookScheduled',
        data: {
          delivery_id: deterministicId('r1/transformation.failed'),
          event: 'transformation.failed',
          url: orgWebhook,
          due_at: expect.any(String),
        },
      },
    ]);
    const [scheduled] = await bed.decidedAfter('r1', 2);
    expect((scheduled.data as { due_at: string }).due_at >= before).toBe(true);
  });

  it("the run's notify_url wins over the organization's; the same event delivered again schedules nothing more", async () => {
    const stream = await bed.given('r1', [created({ notify_url: 'https://hooks.example.com/run', created_at: T0 }), failed]);
    await bed.when('notifier', stream[1]);
    await bed.when('notifier', { ...stream[1], event_id: 'a-copy', position: stream[1].position + 100 });
    const decided = await bed.decidedAfter('r1', 1);
    expect(decided.map((e) => [e.type, (e.data as { url: string }).url])).toEqual([['WebhookScheduled', 'https://hooks.example.com/run']]);
  });

  it('no URL anywhere: nothing is owed', async () => {
    orgWebhook = null;
    const stream = await bed.given('r1', HISTORY.canceled);
    await bed.when('notifier', stream[4]);
    expect(await bed.decidedAfter('r1', 4)).toEqual([]);
  });
});
