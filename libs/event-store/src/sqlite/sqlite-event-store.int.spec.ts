import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointStoreContract } from '../testing/checkpoint-store.contract';
import { eventStoreContract } from '../testing/event-store.contract';
import { SqliteCheckpointStore, SqliteEventStore } from './sqlite-event-store';

eventStoreContract('SQLite', async () => new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'es-')), 'events.sqlite'), 20));

checkpointStoreContract('SQLite', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'cp-')), 'events.sqlite');
  return {
    store: new SqliteCheckpointStore(file),
    reopen: async () => new SqliteCheckpointStore(file),
    close: (s) => (s as SqliteCheckpointStore).close(),
  };
});

describe('SqliteEventStore across processes', () => {
  it('two store instances on one file (as two processes) see each other by polling', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'es2-')), 'events.sqlite');
    const writer = new SqliteEventStore(file, 20);
    const reader = new SqliteEventStore(file, 20);
    const seen: string[] = [];
    const sub = reader.subscribeToAll(0, async (e) => {
      seen.push(e.type);
    });
    await writer.appendToStream(
      'run-x',
      [
        {
          event_id: 'e1',
          type: 'A',
          data: {},
          metadata: { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: '', schema_version: 1 },
        },
      ],
      'no_stream',
    );
    const until = Date.now() + 2000;
    while (seen.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    expect(seen).toEqual(['A']);
    await writer.close();
    await reader.close();
  });
});
