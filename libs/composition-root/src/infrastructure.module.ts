import { type DynamicModule, Global, Logger, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@app/logging';
import { join } from 'node:path';
import { BLOB_STORE, LocalBlobStore, URL_SIGNER, UrlSigner } from '@app/blob-storage';
import { MESSAGE_BUS, type MessageBus } from '@app/bus';
import { APP_CONFIG, type AppConfig, loadConfig } from '@app/config';
import { CHECKPOINT_STORE, EVENT_STORE, type CheckpointStore, type EventStore, SqliteCheckpointStore } from '@app/event-store';
import { CommandBus, CqrsModule, QueryBus } from '@nestjs/cqrs';
import { DIRECTORY } from '@app/directory';
import { ACCOUNT_STORE } from '@app/accounts';
import { ProjectionWaiter, RUN_READ_MODEL, type RunReadModel, type SqliteReadModel } from '@app/read-model';
import type { MongoReadModel } from '@app/read-model/mongo/mongo-read-model';
import { DELIVERY_LOG } from '@app/read-model/delivery-log.port';
import { DEAD_LETTER_STORE, type DeadLetterStore } from '@app/dead-letters';
import { LEASE_STORE, type LeaseStore } from '@app/leases';
import { RunCommandsModule } from '@app/run-commands';
import { RunEventsServer } from '@app/run-event-transport';
import { AdapterLifetime } from './adapter-lifetime';
import {
  openAccounts,
  openBlobStore,
  openBus,
  openDeadLetters,
  openDeliveryLog,
  openLeases,
  openDirectory,
  openEventStore,
  openReadModel,
} from './adapters';
import { CpuWork, DuplicateRowsFinder, ProblemCounter, SourceInspector } from '@app/cpu-work';
import { Readiness } from './readiness';
import { createRunEventsServer } from './run-event-wiring';

/** What processes killed mid-write left in the local store's temporary files, removed as a process starts; a failure only costs disk space. */
async function sweepTemporaryFiles(store: LocalBlobStore): Promise<void> {
  const log = new Logger('BlobStore');
  await store.removeAbandonedTemporaryFiles().then(
    (removed) => removed > 0 && log.warn(`Removed ${removed} temporary file(s) left by writes that never finished`),
    (err: Error) => log.warn(`Could not look for abandoned temporary files: ${err.message}`),
  );
}

/**
 * Chooses and builds the adapter behind every port. Embedded adapters (SQLite files,
 * in-process bus, local directory, all under DATA_DIR) are the default; EVENT_STORE,
 * BUS, READ_MODEL and BLOB_STORE pick the distributed ones. Checkpoints live with the
 * read model (MongoDB) or in the embedded SQLite file; the directory goes where the read
 * model is (openDirectory).
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    const readModel = { provide: 'READ_MODEL', useFactory: openReadModel, inject: [APP_CONFIG] };
    return {
      module: InfrastructureModule,
      // Commands and queries of runs go through @nestjs/cqrs's buses (libs/run-commands).
      // Structured logs (libs/logging): every Nest Logger line as JSON, with the request's or event's context.
      imports: [
        CqrsModule.forRoot(),
        RunCommandsModule,
        LoggerModule.forRoot(loggerParams(config.log)),
        TerminusModule.forRoot({ logger: false }),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: EVENT_STORE, useFactory: (c: AppConfig) => openEventStore(c), inject: [APP_CONFIG] },
        {
          provide: CHECKPOINT_STORE,
          useFactory: (c: AppConfig, rm: SqliteReadModel | MongoReadModel) =>
            c.readModel.kind === 'mongo'
              ? (rm as MongoReadModel).checkpointStore()
              : new SqliteCheckpointStore(join(c.dataDir, 'events.sqlite')),
          inject: [APP_CONFIG, 'READ_MODEL'],
        },
        { provide: MESSAGE_BUS, useFactory: (c: AppConfig) => openBus(c), inject: [APP_CONFIG] },
        readModel,
        { provide: RUN_READ_MODEL, useExisting: 'READ_MODEL' },
        // Every webhook attempt by organization (the console's delivery log), projected next to the runs.
        { provide: DELIVERY_LOG, useFactory: openDeliveryLog, inject: [APP_CONFIG] },
        // Organizations, keys, schemas, providers: kept where the read model is configured (openDirectory).
        { provide: DIRECTORY, useFactory: openDirectory, inject: [APP_CONFIG] },
        // The console's people (members, invitations, sessions): where the directory is.
        { provide: ACCOUNT_STORE, useFactory: openAccounts, inject: [APP_CONFIG] },
        { provide: URL_SIGNER, useFactory: (c: AppConfig) => new UrlSigner(c.signingSecret), inject: [APP_CONFIG] },
        {
          provide: BLOB_STORE,
          useFactory: async (c: AppConfig, s: UrlSigner) => {
            const store = openBlobStore(c, s);
            if (store instanceof LocalBlobStore) await sweepTemporaryFiles(store);
            return store;
          },
          inject: [APP_CONFIG, URL_SIGNER],
        },
        { provide: ProjectionWaiter, useFactory: (rm: RunReadModel) => new ProjectionWaiter(rm), inject: [RUN_READ_MODEL] },
        {
          // The transport of every worker's @EventPattern handlers (connected in main.ts / createHttpApp).
          provide: RunEventsServer,
          useFactory: (
            config: AppConfig,
            bus: MessageBus,
            store: EventStore,
            checkpoints: CheckpointStore,
            readModel: RunReadModel,
            deadLetters: DeadLetterStore,
            leases: LeaseStore,
            c: CommandBus,
            q: QueryBus,
          ) => createRunEventsServer({ config, bus, store, checkpoints, readModel, deadLetters, leases, commandBus: c, queryBus: q }),
          inject: [
            APP_CONFIG,
            MESSAGE_BUS,
            EVENT_STORE,
            CHECKPOINT_STORE,
            RUN_READ_MODEL,
            DEAD_LETTER_STORE,
            LEASE_STORE,
            CommandBus,
            QueryBus,
          ],
        },
        { provide: DEAD_LETTER_STORE, useFactory: (c: AppConfig) => openDeadLetters(c), inject: [APP_CONFIG] },
        { provide: LEASE_STORE, useFactory: (c: AppConfig) => openLeases(c), inject: [APP_CONFIG] },
        AdapterLifetime,
        CpuWork,
        DuplicateRowsFinder,
        ProblemCounter,
        SourceInspector,
        Readiness,
      ],
      exports: [
        APP_CONFIG,
        EVENT_STORE,
        CHECKPOINT_STORE,
        MESSAGE_BUS,
        RUN_READ_MODEL,
        DELIVERY_LOG,
        DIRECTORY,
        ACCOUNT_STORE,
        URL_SIGNER,
        BLOB_STORE,
        ProjectionWaiter,
        RunEventsServer,
        DEAD_LETTER_STORE,
        LEASE_STORE,
        CpuWork,
        DuplicateRowsFinder,
        ProblemCounter,
        SourceInspector,
        Readiness,
      ],
    };
  }
}
