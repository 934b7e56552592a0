import { randomUUID } from 'node:crypto';
import { MongoDirectory } from '@app/directory/mongo/mongo-directory';
import { MongoReadModel } from '@app/read-model/mongo/mongo-read-model';
import { directoryContract } from '../../libs/directory/src/testing/directory.contract';
import { testSecretCipher } from '../../libs/directory/src/testing/test-secret-cipher';
import { describeWithEngine } from '../support/engine-gate';

// Each test gets its own database, dropped afterwards.
describeWithEngine('MONGO_URL', 'mongodb://127.0.0.1:27017/?replicaSet=rs0', 'MongoDB directory', (url) => {
  const opened: MongoDirectory[] = [];
  // One key for the whole file: a database reopened by a test reads what it sealed.
  const secrets = testSecretCipher();
  const open = async (db = `contract_${randomUUID().slice(0, 8)}`) => {
    const d = await MongoDirectory.connect(url, secrets, db);
    opened.push(d);
    return d;
  };
  afterAll(async () => {
    for (const d of opened)
      await (d as unknown as { connection: { dropDatabase(): Promise<void> } }).connection.dropDatabase().catch(() => undefined);
  });

  directoryContract('MongoDB', open);

  describe('MongoDB specifics', () => {
    it('creates the indexes the lookups need', async () => {
      const directory = await open();
      const conn = (
        directory as unknown as { connection: { collection(n: string): { indexes(): Promise<Array<{ key: Record<string, number> }>> } } }
      ).connection;
      const keyKeys = (await conn.collection('api_keys').indexes()).map((i) => Object.keys(i.key).join(','));
      expect(keyKeys).toContain('key_hash');
      await directory.close();
    });

    it("keeps its collections in the read model's database, under the names they had when one adapter held both", async () => {
      const db = `contract_${randomUUID().slice(0, 8)}`;
      const directory = await open(db);
      const readModel = await MongoReadModel.connect(url, db);
      const conn = (directory as unknown as { connection: { db: { listCollections(): { toArray(): Promise<Array<{ name: string }>> } } } })
        .connection;
      const names = (await conn.db.listCollections().toArray()).map((c) => c.name);
      expect(names).toEqual(
        expect.arrayContaining(['organizations', 'quota_consumptions', 'api_keys', 'schemas', 'providers', 'idempotency_keys', 'runs']),
      );
      await readModel.close();
      await directory.close();
    });
  });
});
