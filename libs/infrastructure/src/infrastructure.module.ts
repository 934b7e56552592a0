import { type DynamicModule, Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { BLOB_STORE, UrlSigner } from '@app/blob-storage';
import { MESSAGE_BUS } from '@app/bus';
import { APP_CONFIG, type AppConfig, loadConfig } from '@app/config';
import { CHECKPOINT_STORE, EVENT_STORE, type EventStore, SqliteCheckpointStore } from '@app/event-store';
import { ConsumerRegistry, ProjectionWaiter } from '@app/processing';
import { DIRECTORY, RUN_READ_MODEL, type RunReadModel, type SqliteReadModel } from '@app/read-model';
import type { MongoReadModel } from '@app/read-model/mongo/mongo-read-model';
import { RunCommandHandler } from '@app/runs';
import { openBlobStore, openBus, openEventStore, openReadModel } from './adapters';
import { CpuWork } from './cpu-work/cpu-work';
import { PipelineRuntime } from './pipeline-runtime';
import { URL_SIGNER } from './tokens';

/**
 * Chooses and builds the adapter behind every port. Embedded adapters (SQLite files,
 * in-process bus, local directory, all under DATA_DIR) are the default; EVENT_STORE,
 * BUS, READ_MODEL and BLOB_STORE pick the distributed ones. Checkpoints live with the
 * read model (MongoDB) or in the embedded SQLite file.
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    const readModel = { provide: 'READ_MODEL', useFactory: openReadModel, inject: [APP_CONFIG] };
    return {
      module: InfrastructureModule,
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
        { provide: DIRECTORY, useExisting: 'READ_MODEL' },
        { provide: URL_SIGNER, useFactory: (c: AppConfig) => new UrlSigner(c.signingSecret), inject: [APP_CONFIG] },
        {
          provide: BLOB_STORE,
          useFactory: (c: AppConfig, s: UrlSigner) => openBlobStore(c, s),
          inject: [APP_CONFIG, URL_SIGNER],
        },
        { provide: RunCommandHandler, useFactory: (s: EventStore) => new RunCommandHandler(s), inject: [EVENT_STORE] },
        { provide: ProjectionWaiter, useFactory: (rm: RunReadModel) => new ProjectionWaiter(rm), inject: [RUN_READ_MODEL] },
        ConsumerRegistry,
        PipelineRuntime,
        CpuWork,
      ],
      exports: [
        APP_CONFIG,
        EVENT_STORE,
        CHECKPOINT_STORE,
        MESSAGE_BUS,
        RUN_READ_MODEL,
        DIRECTORY,
        URL_SIGNER,
        BLOB_STORE,
        RunCommandHandler,
        ProjectionWaiter,
        ConsumerRegistry,
        CpuWork,
      ],
    };
  }
}
