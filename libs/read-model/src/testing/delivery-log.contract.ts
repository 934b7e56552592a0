import { randomUUID } from 'node:crypto';
import type { DeliveryAttemptEntry, DeliveryLog } from '../delivery-log.port';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();

function entry(over: Partial<DeliveryAttemptEntry> & { minute: number }): DeliveryAttemptEntry {
  const { minute, ...rest } = over;
  const delivery_id = rest.delivery_id ?? randomUUID();
  const attempt = rest.attempt ?? 1;
  return {
    id: `${delivery_id}:${attempt}`,
    organization_id: 'org-a',
    run_id: 'run-1',
    delivery_id,
    event: 'transformation.finished',
    url: 'https://hooks.example.com/in',
    attempt,
    outcome: 'delivered',
    status_code: 200,
    error: null,
    duration_ms: 42,
    response_excerpt: 'ok',
    sent_at: at(minute),
    ...rest,
  };
}

/** Behaviour every delivery-log adapter must have. */
export function deliveryLogContract(name: string, create: () => Promise<DeliveryLog>): void {
  describe(`DeliveryLog contract: ${name}`, () => {
    let log: DeliveryLog;
    beforeEach(async () => {
      log = await create();
    });
    afterEach(async () => log.close());

    it("lists an organization's attempts newest first, each as recorded", async () => {
      const d = randomUUID();
      const first = entry({
        delivery_id: d,
        attempt: 1,
        minute: 1,
        outcome: 'failed',
        status_code: 500,
        error: 'HTTP 500',
        response_excerpt: 'boom',
      });
      const second = entry({
        delivery_id: d,
        attempt: 2,
        minute: 2,
        status_code: null,
        error: null,
        duration_ms: null,
        response_excerpt: null,
        url: null,
      });
      await log.record(first);
      await log.record(second);
      await log.record(entry({ minute: 3, organization_id: 'org-b' }));
      const page = await log.list('org-a', { offset: 0, limit: 10 });
      expect(page).toEqual({ items: [second, first], total: 2 });
      expect(await log.list('org-c', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it('is replay-safe: the same attempt recorded again stays one entry, unchanged', async () => {
      const e = entry({ minute: 5 });
      await log.record(e);
      await log.record(e);
      await log.record({ ...e, status_code: 201 }); // another projector's copy of the same attempt
      expect(await log.list('org-a', { offset: 0, limit: 10 })).toEqual({ items: [e], total: 1 });
    });

    it('filters by event and outcome, counting what the filter keeps', async () => {
      await log.record(entry({ minute: 1, outcome: 'failed', status_code: 500, error: 'HTTP 500' }));
      await log.record(entry({ minute: 2, event: 'transformation.failed' }));
      await log.record(
        entry({ minute: 3, event: 'transformation.failed', outcome: 'failed', status_code: null, error: 'connection refused' }),
      );
      await log.record(entry({ minute: 4 }));
      const failed = await log.list('org-a', { outcome: 'failed', offset: 0, limit: 10 });
      expect(failed.total).toBe(2);
      expect(failed.items.map((i) => i.sent_at)).toEqual([at(3), at(1)]);
      const failedRuns = await log.list('org-a', { event: 'transformation.failed', offset: 0, limit: 10 });
      expect(failedRuns.items.map((i) => i.sent_at)).toEqual([at(3), at(2)]);
      const both = await log.list('org-a', { event: 'transformation.failed', outcome: 'delivered', offset: 0, limit: 10 });
      expect(both.items.map((i) => i.sent_at)).toEqual([at(2)]);
      expect(both.total).toBe(1);
    });

    it('pages: offset and limit over the newest-first order, the total of them all', async () => {
      for (let m = 1; m <= 5; m++) await log.record(entry({ minute: m }));
      const page2 = await log.list('org-a', { offset: 2, limit: 2 });
      expect(page2.total).toBe(5);
      expect(page2.items.map((i) => i.sent_at)).toEqual([at(3), at(2)]);
      expect((await log.list('org-a', { offset: 10, limit: 2 })).items).toEqual([]);
    });
  });
}
