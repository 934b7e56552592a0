import { Controller, type INestMicroservice } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '@app/contracts';
import { SqliteDeadLetterStore } from '@app/dead-letters';
import { SqliteLeaseStore } from '@app/leases';
import { ManualBus } from '../../../test/support/manual-bus';
import { runEvent } from '../../../test/support/run-event-fixture';
import { ClaimedSteps, stepClaimName, stepClaimPrefix } from './claimed-steps';
import { PassErrorsToTransport } from './pass-errors-to-transport.filter';
import type { RunEventContext } from './run-event.context';
import { RunEventsServer } from './run-events.server';

const approved = (position: number): StoredEvent => runEvent(position, 'Approved');

/** Each handling of a step, by which replica ("A@7"). */
const handled: string[] = [];
/** The step waits on this gate, as long work would; opened by the test. */
let gate: { promise: Promise<void>; open: () => void };
const newGate = () => {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
};
let failing = false;

@Controller()
class SlowHandlers {
  @EventPattern('Approved', { consumer: 'slow', claimStep: true })
  async onApproved(@Payload() e: StoredEvent, @Ctx() ctx: RunEventContext): Promise<void> {
    handled.push(`${ctx.lane}@${e.position}`);
    if (failing) throw new TypeError('cannot read properties of undefined');
    await gate.promise;
  }
}

const waitFor = async (what: () => boolean | Promise<boolean>, ms = 5000) => {
  const until = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('Claimed steps: long work outside the bus handler, taken over when its process dies', () => {
  let dir: string;
  let clock: number;
  const apps: INestMicroservice[] = [];
  const stores: Array<{ close(): Promise<unknown> }> = [];

  /** One replica: its own bus and checkpoints, the shared lease and dead-letter files. The lane names the replica in `handled`. */
  async function replica(holder: string) {
    const leases = new SqliteLeaseStore(join(dir, 'events.sqlite'), () => clock);
    const deadLetters = new SqliteDeadLetterStore(join(dir, 'events.sqlite'));
    stores.push(leases, deadLetters);
    const checkpoints = new Map<string, number>();
    const bus = new ManualBus();
    const server = new RunEventsServer(
      bus,
      {
        load: async (g, lane) => checkpoints.get(`${g}@${lane}`) ?? 0,
        save: async (g, lane, p) => void checkpoints.set(`${g}@${lane}`, p),
      },
      { execute: async () => ({ state: {}, revision: 1 }) } as unknown as CommandBus,
      {
        execute: async () => ({ state: { id: 'r1', status: 'processing', stage: 'final_processing' }, revision: 1 }),
      } as unknown as QueryBus,
      {
        deadLetters,
        maxAttempts: 2,
        replayPollMs: 0,
        claims: new ClaimedSteps({ store: leases, holder, ttlMs: 10_000, renewMs: 20, concurrency: 4, now: () => clock }),
      },
    );
    const moduleRef = await Test.createTestingModule({ controllers: [SlowHandlers] }).compile();
    const app = moduleRef.createNestMicroservice({ strategy: server, logger: false });
    app.useGlobalFilters(new PassErrorsToTransport());
    await app.listen();
    apps.push(app);
    return { bus, checkpoints, leases, deadLetters };
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'claims-'));
    clock = 1_000_000;
    handled.length = 0;
    failing = false;
    gate = newGate();
  });

  afterEach(async () => {
    gate.open();
    for (const app of apps.splice(0)) await app.close();
    for (const s of stores.splice(0)) await s.close();
  });

  it('acknowledges the event once the step is claimed; the step runs after, and its claim is released when it settles', async () => {
    const a = await replica('A');
    await a.bus.deliver('slow', approved(7), 'A'); // returns while the step still waits on its gate
    expect(a.checkpoints.get('slow@A')).toBe(7);
    await waitFor(() => handled.length === 1);
    const [claim] = await a.leases.list(stepClaimPrefix('slow'), 10);
    expect(claim).toMatchObject({ name: stepClaimName('slow', 'run-r1', 7), holder: 'A' });
    expect(JSON.parse(claim.note!)).toEqual({ event: approved(7), lane: 'A' });
    gate.open();
    await waitFor(async () => (await a.leases.list(stepClaimPrefix('slow'), 10)).length === 0);
    expect(handled).toEqual(['A@7']);
  });

  it('a second replica given the same event while the first works leaves the step to it', async () => {
    const a = await replica('A');
    const b = await replica('B');
    await a.bus.deliver('slow', approved(7), 'A');
    await waitFor(() => handled.length === 1);
    await b.bus.deliver('slow', approved(7), 'B'); // a redelivery after a rebalance
    expect(b.checkpoints.get('slow@B')).toBe(7);
    gate.open();
    await waitFor(async () => (await a.leases.list(stepClaimPrefix('slow'), 10)).length === 0);
    expect(handled).toEqual(['A@7']);
  });

  it('a step whose process died is taken over by another replica only once its claim has expired, and handled once', async () => {
    // What a process leaves when it dies after claiming: the claim, no longer renewed.
    const seed = new SqliteLeaseStore(join(dir, 'events.sqlite'), () => clock);
    await seed.acquire(stepClaimName('slow', 'run-r1', 7), 'dead/steps', 10_000, JSON.stringify({ event: approved(7), lane: 'dead' }));
    await seed.close();
    gate.open();
    const b = await replica('B');
    await new Promise((r) => setTimeout(r, 200)); // ten takeover sweeps
    expect(handled).toEqual([]);
    clock += 10_000; // the claim expires
    await waitFor(() => handled.length === 1);
    await waitFor(async () => (await b.leases.list(stepClaimPrefix('slow'), 10)).length === 0);
    await new Promise((r) => setTimeout(r, 100));
    expect(handled).toEqual(['dead@7']);
  });

  it('a process that comes back under its own name takes its claims back at once, without waiting for them to expire', async () => {
    const seed = new SqliteLeaseStore(join(dir, 'events.sqlite'), () => clock);
    await seed.acquire(stepClaimName('slow', 'run-r1', 7), 'A', 10_000, JSON.stringify({ event: approved(7), lane: 'before' }));
    await seed.close();
    gate.open();
    await replica('A');
    await waitFor(() => handled.length === 1);
    expect(handled).toEqual(['before@7']);
  });

  it('a claimed step that keeps failing becomes a dead letter after its attempts, and its claim is released', async () => {
    failing = true;
    const a = await replica('A');
    await a.bus.deliver('slow', approved(7), 'A');
    await waitFor(async () => (await a.leases.list(stepClaimPrefix('slow'), 10)).length === 0);
    expect(handled).toEqual(['A@7', 'A@7']);
    const letters = await a.deadLetters.list(10);
    expect(letters.map((l) => [l.group, l.event.position, l.attempts])).toEqual([['slow', 7, 2]]);
  });
});
