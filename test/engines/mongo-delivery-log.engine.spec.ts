import { randomUUID } from 'node:crypto';
import { MongoDeliveryLog } from '@app/read-model/mongo/mongo-delivery-log';
import { deliveryLogContract } from '../../libs/read-model/src/testing/delivery-log.contract';
import { describeWithEngine } from '../support/engine-gate';

// Each test gets its own database, dropped afterwards.
describeWithEngine('MONGO_URL', 'mongodb://127.0.0.1:27017/?replicaSet=rs0', 'MongoDB delivery log', (url) => {
  const opened: MongoDeliveryLog[] = [];
  afterAll(async () => {
    for (const m of opened) {
      const conn = (m as unknown as { connection: { dropDatabase(): Promise<void>; close(): Promise<void> } }).connection;
      await conn.dropDatabase().catch(() => undefined);
    }
  });

  deliveryLogContract('MongoDB', async () => {
    const log = await MongoDeliveryLog.connect(url, `delivery_log_${randomUUID().slice(0, 8)}`);
    opened.push(log);
    return log;
  });
});
