import { randomUUID } from 'node:crypto';
import { MongoAccountStore } from '@app/accounts/mongo/mongo-account-store';
import { accountStoreContract } from '../../libs/accounts/src/testing/account-store.contract';
import { describeWithEngine } from '../support/engine-gate';

// Each store gets its own database, dropped when it closes.
describeWithEngine('MONGO_URL', 'mongodb://127.0.0.1:27017/?replicaSet=rs0', 'MongoDB accounts', (url) => {
  accountStoreContract('MongoDB', async () => {
    const store = await MongoAccountStore.connect(url, `accounts_${randomUUID().slice(0, 8)}`);
    const close = store.close.bind(store);
    const connection = (store as unknown as { connection: { dropDatabase(): Promise<void> } }).connection;
    return Object.assign(store, { close: async () => (await connection.dropDatabase(), await close()) });
  });
});
