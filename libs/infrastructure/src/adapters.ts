import { join } from 'node:path';
import { InProcessBus, KafkaBus, type MessageBus } from '@app/bus';
import type { AppConfig } from '@app/config';
import { type EventStore, EventStoreDbEventStore, SqliteEventStore } from '@app/event-store';
import { MongoReadModel, SqliteReadModel } from '@app/read-model';

/*
 * The one place that turns configuration into adapters, used by the Nest module and by
 * the operator CLI, so both always open the same stores.
 */

export const openEventStore = (c: AppConfig): EventStore =>
  c.eventStore.kind === 'eventstoredb'
    ? new EventStoreDbEventStore(c.eventStore.url)
    : new SqliteEventStore(join(c.dataDir, 'events.sqlite'), c.eventStorePollMs);

export const openReadModel = async (c: AppConfig): Promise<SqliteReadModel | MongoReadModel> =>
  c.readModel.kind === 'mongo' ? MongoReadModel.connect(c.readModel.url) : new SqliteReadModel(join(c.dataDir, 'read-model.sqlite'));

/** `clientSuffix` tells a tool's Kafka connections apart from the service's. */
export const openBus = (c: AppConfig, clientSuffix = ''): MessageBus =>
  c.bus.kind === 'kafka' ? new KafkaBus({ ...c.bus, clientId: `${c.bus.clientId}${clientSuffix}` }) : new InProcessBus();

// The blob store has its own module: worker threads open it without loading the other engines' clients.
export { openBlobStore } from './blob-store-factory';
