import type { StoredEvent } from '@app/contracts';
import { HISTORY, attempted, scheduled } from '@app/domain/testing/run-history.fixtures';
import type { EventStore } from '@app/event-store';
import { DeliveriesService } from './deliveries.service';

const RETRY_AT = '2026-01-01T00:10:00.000Z';

/** Only the run's stream is read; the other collaborators are not reached by these calls. */
function serviceOver(events: { type: string; data: unknown }[]): DeliveriesService {
  const stream = events.map(
    (e, revision) =>
      ({ ...e, revision, recorded_at: '2026-01-01T00:00:00.000Z', metadata: { organization_id: 'o1' } }) as unknown as StoredEvent,
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
