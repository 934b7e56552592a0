import { randomUUID } from 'node:crypto';
import { MongoLeaseStore } from '@app/leases/mongo/mongo-lease-store';
import { leaseStoreContract } from '../../libs/leases/src/testing/lease-store.contract';
import { describeWithEngine } from '../support/engine-gate';

// Each store gets its own database, dropped when it closes.
describeWithEngine('MONGO_URL', 'mongodb://127.0.0.1:27017/?replicaSet=rs0', 'MongoDB leases', (url) => {
  leaseStoreContract('MongoDB', async (now) => {
    const store = await MongoLeaseStore.connect(url, `leases_${randomUUID().slice(0, 8)}`, now);
    const close = store.close.bind(store);
    const connection = (store as unknown as { connection: { dropDatabase(): Promise<void> } }).connection;
    return Object.assign(store, { close: async () => (await connection.dropDatabase(), await close()) });
  });
});
