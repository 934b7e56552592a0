import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '@app/config';
import { SqliteLeaseStore } from '@app/leases';
import type { RunReadModel } from '@app/read-model';
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
