import { Controller, type INestMicroservice } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '@app/contracts';
import { SqliteDeadLetterStore } from '@app/dead-letters';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { ManualBus } from '../../../test/support/manual-bus';
import { runEvent } from '../../../test/support/run-event-fixture';
import { PassErrorsToTransport } from './pass-errors-to-transport.filter';
import type { RunEventContext } from './run-event.context';
import { RunEventsServer } from './run-events.server';
import type { StepCommand } from './run-step';

const event = runEvent;

/** What each handler saw, in order. */
const seen: string[] = [];
let failNext = false;
/** What the Poisoned handler throws on every call. */
let poison: Error = new TypeError('cannot read properties of undefined');

@Controller()
class AlphaHandlers {
  @EventPattern('Started', { consumer: 'alpha' })
  onStarted(@Payload() e: StoredEvent, @Ctx() ctx: RunEventContext): void {
    if (failNext) {
      failNext = false;
      throw new Error('alpha broke');
    }
    seen.push(`alpha ${e.type}@${e.position} lane '${ctx.lane}'`);
  }

  @EventPattern('Finished', { consumer: 'alpha' })
  async onFinished(@Ctx() { step }: RunEventContext): Promise<StepCommand> {
    seen.push(`alpha Finished, run ${(await step.run())?.id}`);
    return { command: { type: 'StartOutput', at: 't' }, step: 'after-finish' };
  }
}

@Controller()
class GammaHandlers {
  @EventPattern('Poisoned', { consumer: 'gamma' })
  onPoisoned(@Payload() e: StoredEvent): void {
    seen.push(`gamma ${e.type}@${e.position}`);
    throw poison;
  }
}

@Controller()
class BetaHandlers {
  @EventPattern('Started', { consumer: 'beta' })
  onStarted(@Payload() e: StoredEvent): void {
    seen.push(`beta ${e.type}@${e.position}`);
  }
}

describe('RunEventsServer: the run-events transport', () => {
  let app: INestMicroservice;
  let bus: ManualBus;
  let server: RunEventsServer;
  let deadLetters: SqliteDeadLetterStore;
  const checkpoints = new Map<string, number>();
  const commands: ApplyRunCommand[] = [];
  const queries: LoadRunQuery[] = [];

  beforeEach(async () => {
    seen.length = 0;
    checkpoints.clear();
    commands.length = 0;
    queries.length = 0;
    poison = new TypeError('cannot read properties of undefined');
    bus = new ManualBus();
    deadLetters = new SqliteDeadLetterStore(join(mkdtempSync(join(tmpdir(), 'transport-dl-')), 'events.sqlite'));
    const commandBus = {
      execute: async (c: ApplyRunCommand) => (commands.push(c), { state: { id: c.runId }, revision: 9 }),
    } as unknown as CommandBus;
    const running = { status: 'processing', stage: 'review', review_state: null, total_rows: null };
    const queryBus = {
      execute: async (q: LoadRunQuery) => (queries.push(q), { state: { id: q.runId, ...running }, revision: 8 }),
    } as unknown as QueryBus;
    server = new RunEventsServer(
      bus,
      {
        load: async (g, lane) => checkpoints.get(`${g}@${lane}`) ?? 0,
        save: async (g, lane, p) => void checkpoints.set(`${g}@${lane}`, p),
      },
      commandBus,
      queryBus,
      { deadLetters, deadLetterTopic: 'dlq', maxAttempts: 3, replayPollMs: 0 },
    );
    const moduleRef = await Test.createTestingModule({ controllers: [AlphaHandlers, BetaHandlers, GammaHandlers] }).compile();
    app = moduleRef.createNestMicroservice({ strategy: server, logger: false });
    app.useGlobalFilters(new PassErrorsToTransport());
    await app.listen();
  });

  afterEach(async () => {
    await app.close();
    await deadLetters.close();
  });

  it('subscribes one group per consumer named in the decorators, and routes each event to that group only', async () => {
    expect(bus.subscribedGroups()).toEqual(['alpha', 'beta', 'gamma']);
    await bus.deliver('alpha', event(1, 'Started'));
    expect(seen).toEqual(["alpha Started@1 lane ''"]);
    await bus.deliver('beta', event(1, 'Started'));
    expect(seen).toEqual(["alpha Started@1 lane ''", 'beta Started@1']);
  });

  it('saves the group checkpoint after the handler, skips redeliveries at or below it, and keeps one per lane', async () => {
    await bus.deliver('alpha', event(5, 'Started'), '0');
    await bus.deliver('alpha', event(5, 'Started'), '0'); // redelivered
    await bus.deliver('alpha', event(3, 'Started'), '1'); // lower, but another lane
    await bus.deliver('alpha', event(4, 'Started'), '0'); // below lane 0's checkpoint
    expect(seen).toEqual(["alpha Started@5 lane '0'", "alpha Started@3 lane '1'"]);
    expect(Object.fromEntries(checkpoints)).toEqual({ 'alpha@0': 5, 'alpha@1': 3 });
  });

  it('moves the checkpoint past an event the group has no handler for', async () => {
    await bus.deliver('beta', event(7, 'Finished'));
    expect(seen).toEqual([]);
    expect(checkpoints.get('beta@')).toBe(7);
  });

  it('leaves the checkpoint where it was when the handler throws, so the bus delivers the event again', async () => {
    failNext = true;
    await expect(bus.deliver('alpha', event(2, 'Started'))).rejects.toThrow();
    expect(checkpoints.get('alpha@')).toBeUndefined();
    await bus.deliver('alpha', event(2, 'Started'));
    expect(seen).toEqual(["alpha Started@2 lane ''"]);
    expect(checkpoints.get('alpha@')).toBe(2);
  });

  it('applies a returned command through the CommandBus, at the snapshot the step read once, idempotent per event', async () => {
    await bus.deliver('alpha', event(3, 'Finished'));
    expect(seen).toEqual(['alpha Finished, run r1']);
    expect(queries.map((q) => q.runId)).toEqual(['r1']);
    expect(commands).toHaveLength(1);
    expect({ ...commands[0] }).toEqual({
      runId: 'r1',
      command: { type: 'StartOutput', at: 't' },
      context: { organizationId: 'o1', correlationId: 'req', causationId: 'e3', idempotencyKey: 'e3/after-finish' },
      known: { state: expect.objectContaining({ id: 'r1' }), revision: 8 },
    });
  });

  it('refuses a handler that names no consumer group', () => {
    const server = new RunEventsServer(bus, { load: async () => 0, save: async () => undefined }, null as never, null as never);
    const handler = Object.assign(async () => undefined, { isEventHandler: true });
    expect(() => server.addHandler('Started', handler, true, {})).toThrow(/must name its consumer group/);
    expect(() => server.addHandler('Started', handler, false, { consumer: 'x' })).toThrow(/use @EventPattern/);
  });

  it('a poison event is retried a bounded number of times, then dead-lettered (stored and published), its run failed, and the lane moves on', async () => {
    const e = event(6, 'Poisoned');
    await expect(bus.deliver('gamma', e)).rejects.toThrow(TypeError);
    await expect(bus.deliver('gamma', e)).rejects.toThrow(TypeError);
    expect(server.health().find((g) => g.group === 'gamma')?.failing).toMatchObject({ type: 'Poisoned', position: 6, attempts: 2 });
    expect(checkpoints.get('gamma@')).toBeUndefined();
    await bus.deliver('gamma', e); // the third attempt: given up
    expect(seen).toEqual(['gamma Poisoned@6', 'gamma Poisoned@6', 'gamma Poisoned@6']);
    expect(checkpoints.get('gamma@')).toBe(6);
    expect(server.health().find((g) => g.group === 'gamma')?.failing).toBeNull();
    expect(await deadLetters.get('gamma/e6')).toMatchObject({
      group: 'gamma',
      lane: '',
      event: e,
      error: { name: 'TypeError', message: 'cannot read properties of undefined' },
      attempts: 3,
    });
    expect(bus.published).toEqual([
      {
        topic: 'dlq',
        records: [
          {
            key: 'run-r1',
            value: e,
            headers: expect.objectContaining({
              dead_letter_group: 'gamma',
              dead_letter_error: 'TypeError: cannot read properties of undefined',
              dead_letter_attempts: '3',
            }),
          },
        ],
      },
    ]);
    expect(commands.map((c) => ({ ...c.command, at: undefined }))).toEqual([
      {
        type: 'FailRun',
        at: undefined,
        error: expect.objectContaining({ code: 'transformation_processing_failed', stage: 'ingestion', retryable: false }),
      },
    ]);
  });

  it('an infrastructure outage is retried for as long as it lasts: never dead-lettered, shown in the group health', async () => {
    poison = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 5; i++) await expect(bus.deliver('gamma', event(7, 'Poisoned'))).rejects.toThrow('ECONNREFUSED');
    expect(await deadLetters.list(10)).toEqual([]);
    expect(commands).toEqual([]);
    expect(server.health().find((g) => g.group === 'gamma')?.failing).toMatchObject({ position: 7, attempts: 5 });
  });

  it("replays a dead letter the operator asked for, whatever the group's checkpoint, and records the outcome", async () => {
    for (let i = 0; i < 3; i++) await bus.deliver('gamma', event(8, 'Poisoned')).catch(() => undefined);
    await bus.deliver('alpha', event(9, 'Started'));
    await deadLetters.record({
      id: 'alpha/e2',
      group: 'alpha',
      lane: '',
      event: event(2, 'Started'),
      error: { name: 'Error', message: 'x' },
      attempts: 3,
      dead_at: 't',
    });
    await deadLetters.requestReplay('alpha/e2', '2026-01-01T00:00:00.000Z');
    await deadLetters.requestReplay('gamma/e8', '2026-01-01T00:00:00.000Z');
    seen.length = 0;
    expect(await server.replayRequested()).toBe(2);
    expect(seen.sort()).toEqual(["alpha Started@2 lane ''", 'gamma Poisoned@8']);
    expect(await deadLetters.get('alpha/e2')).toMatchObject({ replay_outcome: 'handled' });
    expect(await deadLetters.get('gamma/e8')).toMatchObject({ replay_outcome: 'failed: cannot read properties of undefined' });
    expect(checkpoints.get('alpha@')).toBe(9);
    expect(await server.replayRequested()).toBe(0);
  });

  it("counts attempts per lane: another lane's progress does not reset a poison event's count", async () => {
    const poisoned = event(6, 'Poisoned');
    await expect(bus.deliver('gamma', poisoned, '0')).rejects.toThrow(TypeError);
    await bus.deliver('gamma', event(7, 'Other'), '1'); // nothing to do on lane 1: it moves on
    await expect(bus.deliver('gamma', poisoned, '0')).rejects.toThrow(TypeError);
    await bus.deliver('gamma', poisoned, '0'); // the third attempt on lane 0: dead-lettered
    expect(await deadLetters.get('gamma/e6')).toMatchObject({ lane: '0', attempts: 3 });
    expect(checkpoints.get('gamma@0')).toBe(6);
  });
});
