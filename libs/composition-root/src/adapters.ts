import { type AccountStore, SqliteAccountStore } from '@app/accounts';
import { join } from 'node:path';
import { InProcessBus, type MessageBus } from '@app/bus';
import type { AppConfig } from '@app/config';
import { type DeadLetterStore, SqliteDeadLetterStore } from '@app/dead-letters';
import { type LeaseStore, SqliteLeaseStore } from '@app/leases';
import { type EventStore, SqliteEventStore } from '@app/event-store';
import { SecretCipher, SqliteDirectory } from '@app/directory';
import type { MongoDirectory } from '@app/directory/mongo/mongo-directory';
import { SqliteReadModel } from '@app/read-model';
import type { MongoReadModel } from '@app/read-model/mongo/mongo-read-model';
import type { DeliveryLog } from '@app/read-model/delivery-log.port';
import { SqliteDeliveryLog } from '@app/read-model/sqlite/sqlite-delivery-log';

/*
 * The one place that turns configuration into adapters, used by the Nest module and by
 * the operator CLI, so both always open the same stores. The distributed adapters are
 * loaded only when configured: their clients (EventStoreDB's gRPC, mongoose, kafkajs)
 * would otherwise cost every embedded process some 30 MB and a slower start.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- the lazy loads described above */

export const openEventStore = (c: AppConfig): EventStore => {
  if (c.eventStore.kind !== 'eventstoredb') return new SqliteEventStore(join(c.dataDir, 'events.sqlite'), c.eventStorePollMs);
  const { EventStoreDbEventStore } =
    require('@app/event-store/eventstoredb/eventstoredb-event-store') as typeof import('@app/event-store/eventstoredb/eventstoredb-event-store');
  return new EventStoreDbEventStore(c.eventStore.url);
};

/** The embedded read model's file; the embedded directory keeps its tables in it too (see openDirectory). */
const READ_MODEL_FILE = 'read-model.sqlite';

export const openReadModel = async (c: AppConfig): Promise<SqliteReadModel | MongoReadModel> => {
  if (c.readModel.kind !== 'mongo') return new SqliteReadModel(join(c.dataDir, READ_MODEL_FILE));
  const mongo = require('@app/read-model/mongo/mongo-read-model') as typeof import('@app/read-model/mongo/mongo-read-model');
  return mongo.MongoReadModel.connect(c.readModel.url);
};

/** The webhook delivery log (a projection) sits with the read model: its SQLite file, or its MongoDB database. */
export const openDeliveryLog = async (c: AppConfig): Promise<DeliveryLog> => {
  if (c.readModel.kind !== 'mongo') return new SqliteDeliveryLog(join(c.dataDir, READ_MODEL_FILE));
  const mongo = require('@app/read-model/mongo/mongo-delivery-log') as typeof import('@app/read-model/mongo/mongo-delivery-log');
  return mongo.MongoDeliveryLog.connect(c.readModel.url);
};

/**
 * The directory follows the read model's configuration (READ_MODEL, MONGO_URL) and stays
 * where it was when one adapter held both: in DATA_DIR/read-model.sqlite, or in the
 * read model's MongoDB database under the same collection names. Existing deployments
 * keep their organizations, keys and secrets without a migration; each adapter has its
 * own connection.
 */
export const openDirectory = async (c: AppConfig): Promise<SqliteDirectory | MongoDirectory> => {
  // Webhook secrets and provider API keys are stored encrypted (docs/security.md).
  const secrets = new SecretCipher(c.secrets);
  if (c.readModel.kind !== 'mongo') return new SqliteDirectory(join(c.dataDir, READ_MODEL_FILE), secrets);
  const mongo = require('@app/directory/mongo/mongo-directory') as typeof import('@app/directory/mongo/mongo-directory');
  return mongo.MongoDirectory.connect(c.readModel.url, secrets);
};

/** The console's members, invitations and sessions sit with the directory: the read model's SQLite file or MongoDB database. */
export const openAccounts = async (c: AppConfig): Promise<AccountStore> => {
  if (c.readModel.kind !== 'mongo') return new SqliteAccountStore(join(c.dataDir, READ_MODEL_FILE));
  const mongo = require('@app/accounts/mongo/mongo-account-store') as typeof import('@app/accounts/mongo/mongo-account-store');
  return mongo.MongoAccountStore.connect(c.readModel.url);
};

/** Dead letters sit next to the checkpoints: the embedded event store's file, or the read model's MongoDB database. */
export const openDeadLetters = async (c: AppConfig): Promise<DeadLetterStore> => {
  if (c.readModel.kind !== 'mongo') return new SqliteDeadLetterStore(join(c.dataDir, 'events.sqlite'));
  const mongo =
    require('@app/dead-letters/mongo/mongo-dead-letter-store') as typeof import('@app/dead-letters/mongo/mongo-dead-letter-store');
  return mongo.MongoDeadLetterStore.connect(c.readModel.url);
};

/** Leases sit next to the checkpoints too, where every process of the deployment sees them. */
export const openLeases = async (c: AppConfig): Promise<LeaseStore> => {
  if (c.readModel.kind !== 'mongo') return new SqliteLeaseStore(join(c.dataDir, 'events.sqlite'));
  const mongo = require('@app/leases/mongo/mongo-lease-store') as typeof import('@app/leases/mongo/mongo-lease-store');
  return mongo.MongoLeaseStore.connect(c.readModel.url);
};

/** `clientSuffix` tells a tool's Kafka connections apart from the service's. */
export const openBus = (c: AppConfig, clientSuffix = ''): MessageBus => {
  if (c.bus.kind !== 'kafka') return new InProcessBus();
  const { KafkaBus } = require('@app/bus/kafka/kafka-bus') as typeof import('@app/bus/kafka/kafka-bus');
  return new KafkaBus({ ...c.bus, clientId: `${c.bus.clientId}${clientSuffix}` });
};

// The blob store has its own module: worker threads open it without loading the other engines' clients.
export { openBlobStore } from '@app/blob-storage/open-blob-store';
