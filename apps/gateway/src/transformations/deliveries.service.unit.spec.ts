import type { StoredEvent } from '@app/contracts';
import { HISTORY, attempt, attempted, scheduled } from '@app/domain/testing/run-history.fixtures';
import type { EventStore } from '@app/event-store';
import { DeliveriesService } from './deliveries.service';

const RETRY_AT = '2026-01-01T00:10:00.000Z';

/** Only the run's stream is read; the other collaborators are not reached by these calls. */
function serviceOver(events: { type: string; data: unknown }[]): DeliveriesService {
  const stream = events.map(
    (e, revision) =>
      ({
        ...e,
        stream_id: 'run-r1',
        revision,
        recorded_at: '2026-01-01T00:00:00.000Z',
        metadata: { organization_id: 'o1' },
      }) as unknown as StoredEvent,
  );
  const store = { readStream: async () => stream } as unknown as EventStore;
  return new DeliveriesService(
    { publicBaseUrl: 'http://localhost' } as never,
    store,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
  );
}

describe("a run's deliveries with their plan", () => {
  it('takes the next attempt from the same read of the stream as the attempts, so a listed failure shows its retry', async () => {
    const svc = serviceOver([...HISTORY.completedFinal, scheduled, attempted(1, 'failed', RETRY_AT)]);
    const list = await svc.listRunDeliveriesWithPlan('o1', 'r1', {}, '/console/api/runs/r1/deliveries');
    expect(list.data).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', delivery_next_attempt_at: RETRY_AT })]);
  });

  it('shows no plan once the delivery has settled', async () => {
    const svc = serviceOver([...HISTORY.completedFinal, scheduled, attempted(1, 'failed', RETRY_AT), attempted(2, 'delivered', null)]);
    const list = await svc.listRunDeliveriesWithPlan('o1', 'r1', {}, '/console/api/runs/r1/deliveries');
    expect(list.data.map((a) => [a.attempt, a.delivery_next_attempt_at])).toEqual([
      [2, null],
      [1, null],
    ]);
  });

  it("says of each attempt whether it is its delivery's newest, also on a page without that newest attempt", async () => {
    const other = { type: 'WebhookAttempted', data: { ...attempt(1, 'failed', null), delivery_id: 'd2', event: 'transformation.failed' } };
    // Newest first: d1's attempt 3, d2's attempt 1, then d1's attempts 2 and 1.
    const svc = serviceOver([
      ...HISTORY.completedFinal,
      scheduled,
      attempted(1, 'failed', null),
      attempted(2, 'failed', null),
      other,
      attempted(3, 'delivered', null),
    ]);
    const pageOf = async (page: number, perPage: number) =>
      (await svc.listRunDeliveriesWithPlan('o1', 'r1', { page: String(page), per_page: String(perPage) }, '/x')).data.map((a) => [
        a.delivery_id,
        a.attempt,
        a.delivery_newest,
      ]);
    expect(await pageOf(1, 2)).toEqual([
      ['d1', 3, true],
      ['d2', 1, true],
    ]);
    // Page 2 holds only older attempts of d1: none of them is its newest (on page 1).
    expect(await pageOf(2, 2)).toEqual([
      ['d1', 2, false],
      ['d1', 1, false],
    ]);
    // Split the other way: d1's newest alone on page 1, d2's on page 2.
    expect(await pageOf(1, 1)).toEqual([['d1', 3, true]]);
    expect(await pageOf(2, 1)).toEqual([['d2', 1, true]]);
    expect(await pageOf(3, 1)).toEqual([['d1', 2, false]]);
  });

  it('hides a webhook secret a receiver echoed into an excerpt stored before secrets were hidden as they arrived', async () => {
    const echoed = attempted(1, 'delivered', null);
    (echoed.data as { response_excerpt: string | null }).response_excerpt = '{"x-service-webhook-secret":"whsec_w+uJxLujYg3e50x"}';
    const svc = serviceOver([...HISTORY.completedFinal, scheduled, echoed]);
    const list = await svc.listRunDeliveriesWithPlan('o1', 'r1', {}, '/console/api/runs/r1/deliveries');
    expect(list.data.map((a) => a.response_excerpt)).toEqual(['{"x-service-webhook-secret":"whsec_[hidden]"}']);
  });

  it("is 404 for another organization's run", async () => {
    const svc = serviceOver([...HISTORY.completedFinal, scheduled]);
    await expect(svc.listRunDeliveriesWithPlan('o2', 'r1', {}, '/x')).rejects.toMatchObject({ status: 404 });
  });
});
