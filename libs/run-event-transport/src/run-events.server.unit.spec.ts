import { Controller, type INestMicroservice } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import type { StoredEvent } from '@app/contracts';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { ManualBus } from '../../../test/support/manual-bus';
import type { RunEventContext } from './run-event.context';
import { RunEventsServer } from './run-events.server';
import type { StepCommand } from './run-step';

const event = (position: number, type: string, runId = 'r1'): StoredEvent => ({
  event_id: `e${position}`,
  type,
  data: {},
  stream_id: `run-${runId}`,
  revision: position,
  position,
  recorded_at: '',
  metadata: { organization_id: 'o1', correlation_id: 'req', causation_id: 'req', occurred_at: '', schema_version: 1 },
});

/** What each handler saw, in order. */
const seen: string[] = [];
let failNext = false;

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
class BetaHandlers {
  @EventPattern('Started', { consumer: 'beta' })
  onStarted(@Payload() e: StoredEvent): void {
    seen.push(`beta ${e.type}@${e.position}`);
  }
}

describe('RunEventsServer: the run-events transport', () => {
  let app: INestMicroservice;
  let bus: ManualBus;
  const checkpoints = new Map<string, number>();
  const commands: ApplyRunCommand[] = [];
  const queries: LoadRunQuery[] = [];

  beforeEach(async () => {
    seen.length = 0;
    checkpoints.clear();
    commands.length = 0;
    queries.length = 0;
    bus = new ManualBus();
    const commandBus = {
      execute: async (c: ApplyRunCommand) => (commands.push(c), { state: { id: c.runId }, revision: 9 }),
    } as unknown as CommandBus;
    const queryBus = {
      execute: async (q: LoadRunQuery) => (queries.push(q), { state: { id: q.runId }, revision: 8 }),
    } as unknown as QueryBus;
    const server = new RunEventsServer(
      bus,
      {
        load: async (g, lane) => checkpoints.get(`${g}@${lane}`) ?? 0,
        save: async (g, lane, p) => void checkpoints.set(`${g}@${lane}`, p),
      },
      commandBus,
      queryBus,
    );
    const moduleRef = await Test.createTestingModule({ controllers: [AlphaHandlers, BetaHandlers] }).compile();
    app = moduleRef.createNestMicroservice({ strategy: server, logger: false });
    await app.listen();
  });

  afterEach(() => app.close());

  it('subscribes one group per consumer named in the decorators, and routes each event to that group only', async () => {
    expect(bus.subscribedGroups()).toEqual(['alpha', 'beta']);
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
      known: { state: { id: 'r1' }, revision: 8 },
    });
  });

  it('refuses a handler that names no consumer group', () => {
    const server = new RunEventsServer(bus, { load: async () => 0, save: async () => undefined }, null as never, null as never);
    const handler = Object.assign(async () => undefined, { isEventHandler: true });
    expect(() => server.addHandler('Started', handler, true, {})).toThrow(/must name its consumer group/);
    expect(() => server.addHandler('Started', handler, false, { consumer: 'x' })).toThrow(/use @EventPattern/);
  });
});
