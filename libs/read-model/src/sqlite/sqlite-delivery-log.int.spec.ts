import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deliveryLogContract } from '../testing/delivery-log.contract';
import { SqliteDeliveryLog } from './sqlite-delivery-log';
import { SqliteReadModel } from './sqlite-read-model';

deliveryLogContract('SQLite', async () => new SqliteDeliveryLog(join(mkdtempSync(join(tmpdir(), 'dl-')), 'read.sqlite')));

describe('SQLite delivery log', () => {
  it("shares the read model's file with the run documents, and keeps its entries across a reopen", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dl-shared-')), 'read-model.sqlite');
    const runs = new SqliteReadModel(file);
    const log = new SqliteDeliveryLog(file);
    const e = {
      id: 'd:1',
      organization_id: 'o',
      run_id: 'r',
      delivery_id: 'd',
      event: 'transformation.failed' as const,
      url: 'https://h',
      attempt: 1,
      outcome: 'delivered' as const,
      status_code: 200,
      error: null,
      duration_ms: 3,
      response_excerpt: null,
      sent_at: '2026-01-01T00:00:00.000Z',
    };
    await log.record(e);
    await log.close();
    const reopened = new SqliteDeliveryLog(file);
    expect(await reopened.list('o', { offset: 0, limit: 5 })).toEqual({ items: [e], total: 1 });
    await reopened.close();
    await runs.close();
  });
});
