import { randomUUID } from 'node:crypto';
import { MongoReadModel } from '@app/read-model/mongo/mongo-read-model';
import type { RunState } from '@app/domain';
import { checkpointStoreContract } from '../../libs/event-store/src/testing/checkpoint-store.contract';
import { readModelContract } from '../../libs/read-model/src/testing/read-model.contract';
import { describeWithEngine } from '../support/engine-gate';

// Each test gets its own database, dropped afterwards.
describeWithEngine('MONGO_URL', 'mongodb://127.0.0.1:27017/?replicaSet=rs0', 'MongoDB read model', (url) => {
  const opened: MongoReadModel[] = [];
  const open = async (db = `contract_${randomUUID().slice(0, 8)}`) => {
    const m = await MongoReadModel.connect(url, db);
    opened.push(m);
    return { model: m, db };
  };
  afterAll(async () => {
    for (const m of opened)
      await (m as unknown as { connection: { dropDatabase(): Promise<void> } }).connection.dropDatabase().catch(() => undefined);
  });

  readModelContract('MongoDB', async () => (await open()).model);

  checkpointStoreContract('MongoDB', async () => {
    const { model, db } = await open();
    let current = model;
    return {
      store: model.checkpointStore(),
      reopen: async () => {
        current = (await open(db)).model;
        return current.checkpointStore();
      },
      close: async () => current.close(),
    };
  });

  describe('MongoDB specifics', () => {
    it('creates the indexes the lookups need', async () => {
      const { model } = await open();
      const conn = (
        model as unknown as { connection: { collection(n: string): { indexes(): Promise<Array<{ key: Record<string, number> }>> } } }
      ).connection;
      const runKeys = (await conn.collection('runs').indexes()).map((i) => Object.keys(i.key).join(','));
      expect(runKeys).toEqual(
        expect.arrayContaining(['organization_id,_id', 'webhook_due_at', 'upload_watch_until', 'files_retained_until', 'files_closed_at']),
      );
      await model.close();
    });

    it('keeps customer keys with dots and dollars intact in run documents', async () => {
      const { model } = await open();
      const run = {
        id: randomUUID(),
        organization_id: 'o',
        revision: 0,
        status: 'processing',
        mapping: { 'e.mail': '$weird' },
      } as unknown as RunState;
      await model.saveRun(run, { name: 'runs', position: 1 });
      expect(await model.getRun(run.id)).toEqual(run);
      await model.close();
    });
  });
});
