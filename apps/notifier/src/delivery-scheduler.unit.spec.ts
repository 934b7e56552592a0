import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '@app/config';
import { SqliteLeaseStore } from '@app/leases';
import type { RunReadModel } from '@app/read-model';
import type { RunState, WebhookDelivery } from '@app/domain';
import { DeliveryScheduler } from './delivery-scheduler';

const RUNS = Array.from({ length: 30 }, (_, i) => `run-${String(i).padStart(2, '0')}`);

/** Two notifier replicas on one lease store; each delivery hangs until the test lets it finish. */
function replicas(concurrency: number) {
  const leases = new SqliteLeaseStore(join(mkdtempSync(join(tmpdir(), 'scheduler-')), 'events.sqlite'));
  const config = { webhooks: { concurrency, timeoutMs: 1000, pollMs: 1_000_000 } } as unknown as AppConfig;
  const readModel = { listDueWebhooks: async (_now: string, limit: number) => RUNS.slice(0, limit) } as unknown as RunReadModel;
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const make = (name: string) => {
    process.env.INSTANCE_ID = name; // each replica its own host
    const s = new DeliveryScheduler(config, readModel, null as never, null as never, null as never, null as never, null as never, leases);
    jest
      .spyOn(s as unknown as { attemptDue(id: string): Promise<void> }, 'attemptDue')
      .mockImplementation(
        (runId: string) => new Promise<void>((resolve) => (started.push(`${name} ${runId}`), finish.set(runId, resolve))),
      );
    delete process.env.INSTANCE_ID;
    return s;
  };
  return { one: make('one'), two: make('two'), started, finish, leases };
}

describe('DeliveryScheduler', () => {
  it('slow deliveries do not hide the rest: each look starts due runs up to the concurrency, past the ones in flight', async () => {
    const { one, started, leases } = replicas(25);
    await one.tick();
    expect(started).toHaveLength(20); // one look starts at most a batch
    await one.tick(); // the 20 still hang: the next look reaches past them
    expect(started).toHaveLength(25);
    expect(new Set(started).size).toBe(25);
    await one.tick(); // at the concurrency: nothing more
    expect(started).toHaveLength(25);
    await leases.close();
  });

  it('two replicas never deliver for the same run at once; a run is free again once its attempt is over', async () => {
    const { one, two, started, finish, leases } = replicas(50);
    await one.tick();
    await two.tick();
    const byRun = new Map<string, string[]>();
    for (const s of started) {
      const [who, run] = s.split(' ');
      byRun.set(run, [...(byRun.get(run) ?? []), who]);
    }
    expect([...byRun.values()].every((who) => who.length === 1)).toBe(true);
    expect(byRun.size).toBe(30);
    expect(started.filter((s) => s.startsWith('two'))).toHaveLength(10); // the ten `one` had not taken
    finish.get('run-00')!();
    await new Promise((r) => setTimeout(r, 20));
    await two.tick();
    expect(started).toContain('two run-00');
    await leases.close();
  });
});

describe('DeliveryScheduler: an attempt of transformation.finished once the output is deleted', () => {
  const HOUR = 3_600_000;
  /** A completed run whose finished webhook is due, its output kept until `retention`. */
  const finishedRun = (retention: Date, purged = false) =>
    ({
      id: 'r1',
      organization_id: 'o1',
      status: 'completed',
      stage: 'final',
      schema: { id: 's1' },
      output_key: 'runs/r1/output.json',
      output_format: 'json',
      file_retention_until: retention.toISOString(),
      files_purged_at: purged ? retention.toISOString() : null,
      webhooks: {},
    }) as unknown as RunState;
  const delivery = { delivery_id: 'd1', url: 'https://example.com/hook', attempts: 1, status: 'pending' } as unknown as WebhookDelivery;

  function scheduler() {
    const sent: string[] = [];
    const recorded: Array<{ outcome: string; error: string | null; next_attempt_at: string | null }> = [];
    const config = {
      webhooks: { concurrency: 1, timeoutMs: 1000, pollMs: 1_000_000, maxAttempts: 3, retryDelaysMs: [1000], maxRetryAfterMs: 1000 },
    };
    const directory = { getOrganization: async () => ({ id: 'o1', webhook_secret: 'whsec' }) };
    const commandBus = { execute: async (c: { command: { attempt: (typeof recorded)[number] } }) => recorded.push(c.command.attempt) };
    const links = { reviewUrl: () => 'https://review', download: async () => null };
    const sender = {
      send: async (_url: string, message: { body: string }) => {
        sent.push(message.body);
        return { delivered: true, statusCode: 204, error: null, retryAfterMs: null, durationMs: 1, responseExcerpt: null };
      },
    };
    const s = new DeliveryScheduler(
      config as never,
      null as never,
      directory as never,
      commandBus as never,
      null as never,
      links as never,
      sender as never,
      null as never,
    );
    const attempt = (run: RunState, event: string) =>
      (s as unknown as { attempt(r: RunState, e: string, d: WebhookDelivery, n: number): Promise<void> }).attempt(run, event, delivery, 2);
    return { sent, recorded, attempt };
  }

  it('is not sent with download_url null: the delivery is given up, saying why', async () => {
    for (const run of [finishedRun(new Date(Date.now() - HOUR)), finishedRun(new Date(Date.now() - HOUR), true)]) {
      const { sent, recorded, attempt } = scheduler();
      await attempt(run, 'transformation.finished');
      expect(sent).toEqual([]);
      expect(recorded).toEqual([
        expect.objectContaining({ outcome: 'failed', next_attempt_at: null, error: expect.stringContaining('the output was deleted') }),
      ]);
    }
  });

  it('is sent while the output is kept, and another event of a run whose files are deleted is sent as ever', async () => {
    const kept = scheduler();
    await kept.attempt(finishedRun(new Date(Date.now() + HOUR)), 'transformation.finished');
    expect(kept.sent).toHaveLength(1);
    expect(kept.recorded).toEqual([expect.objectContaining({ outcome: 'delivered' })]);
    const failed = scheduler();
    await failed.attempt({ ...finishedRun(new Date(Date.now() - HOUR), true), status: 'failed' }, 'transformation.failed');
    expect(failed.sent).toHaveLength(1);
  });
});
