import { randomUUID } from 'node:crypto';
import { MongoDeadLetterStore } from '@app/dead-letters/mongo/mongo-dead-letter-store';
import { deadLetterStoreContract } from '../../libs/dead-letters/src/testing/dead-letter-store.contract';
import { describeWithEngine } from '../support/engine-gate';

// Each store gets its own database, dropped when it closes.
describeWithEngine('MONGO_URL', 'mongodb://127.0.0.1:27017/?replicaSet=rs0', 'MongoDB dead letters', (url) => {
  deadLetterStoreContract('MongoDB', async () => {
    const store = await MongoDeadLetterStore.connect(url, `dead_letters_${randomUUID().slice(0, 8)}`);
    const close = store.close.bind(store);
    const connection = (store as unknown as { connection: { dropDatabase(): Promise<void> } }).connection;
    return Object.assign(store, { close: async () => (await connection.dropDatabase(), await close()) });
  });
});
