import { type DynamicModule, Global, type INestMicroservice, Module, type ModuleMetadata } from '@nestjs/common';
import { CommandBus, CqrsModule, QueryBus } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { runStreamId, type RunEvent, type StoredEvent } from '@app/contracts';
import { EVENT_STORE, SqliteEventStore } from '@app/event-store';
import { RunCommandsModule } from '@app/run-commands';
import { PassErrorsToTransport, RunEventsServer, type ConsumerCheckpoints } from '@app/run-event-transport';
import { ManualBus } from './manual-bus';
import { track } from './suite-resources';

/** The event store for every module (as the composition root's global module provides it). */
@Global()
@Module({})
class TestEventStoreModule {
  static with(store: SqliteEventStore): DynamicModule {
    return { module: TestEventStoreModule, providers: [{ provide: EVENT_STORE, useValue: store }], exports: [EVENT_STORE] };
  }
}

/** What a handler appended, as the decider's events: type and payload. */
export type Decided = Pick<RunEvent, 'type' | 'data'>;

/**
 * A Nest microservice holding the handler classes under test, on the real transport
 * (RunEventsServer), the real CommandBus/QueryBus handlers and an embedded event store
 * in a temporary file; the bus is a ManualBus. A spec says:
 *   given(runId, history) -> when(group, event) -> the events appended since, in full.
 */
export class RunEventTestBed {
  private constructor(
    readonly app: INestMicroservice,
    readonly bus: ManualBus,
    readonly store: SqliteEventStore,
    readonly checkpoints: Map<string, number>,
  ) {}

  static async create(metadata: ModuleMetadata): Promise<RunEventTestBed> {
    const store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'run-event-bed-')), 'events.sqlite'), 20);
    const bus = new ManualBus();
    const checkpoints = new Map<string, number>();
    const memory: ConsumerCheckpoints = {
      load: async (group, lane) => checkpoints.get(`${group}@${lane}`) ?? 0,
      save: async (group, lane, position) => void checkpoints.set(`${group}@${lane}`, position),
    };
    const moduleRef = await Test.createTestingModule({
      imports: [CqrsModule.forRoot(), TestEventStoreModule.with(store), RunCommandsModule, ...(metadata.imports ?? [])],
      controllers: metadata.controllers,
      providers: [
        {
          provide: RunEventsServer,
          useFactory: (c: CommandBus, q: QueryBus) => new RunEventsServer(bus, memory, c, q),
          inject: [CommandBus, QueryBus],
        },
        ...(metadata.providers ?? []),
      ],
    }).compile();
    const app = moduleRef.createNestMicroservice({ strategy: moduleRef.get(RunEventsServer) });
    app.useLogger(false);
    app.useGlobalFilters(new PassErrorsToTransport());
    await app.listen();
    const bed = new RunEventTestBed(app, bus, store, checkpoints);
    track('run-event test bed', () => bed.close());
    return bed;
  }

  /** Appends a run's history (as its own writers would have: its RunCreated names this run) and returns the stored events. */
  async given(runId: string, history: RunEvent[]): Promise<StoredEvent[]> {
    await this.store.appendToStream(
      runStreamId(runId),
      history.map((e) => ({
        event_id: randomUUID(),
        type: e.type,
        data: e.type === 'RunCreated' ? { ...e.data, run_id: runId } : e.data,
        metadata: {
          organization_id: 'o1',
          correlation_id: 'req-1',
          causation_id: 'req-1',
          occurred_at: new Date().toISOString(),
          schema_version: 1,
        },
      })),
      'any',
    );
    return this.store.readStream(runStreamId(runId));
  }

  /** Delivers one stored event to one consumer group and waits for its handling. */
  when(group: string, event: StoredEvent, lane?: string): Promise<void> {
    return this.bus.deliver(group, event, lane);
  }

  /** The events of the run after revision `after`, whole. */
  async appendedAfter(runId: string, after: number): Promise<StoredEvent[]> {
    return (await this.store.readStream(runStreamId(runId))).filter((e) => e.revision > after);
  }

  /** The same, as type and payload only. */
  async decidedAfter(runId: string, after: number): Promise<Decided[]> {
    return (await this.appendedAfter(runId, after)).map(({ type, data }) => ({ type, data }) as Decided);
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.store.close();
  }
}
