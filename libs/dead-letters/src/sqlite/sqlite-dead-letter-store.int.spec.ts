import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadLetterStoreContract } from '../testing/dead-letter-store.contract';
import { SqliteDeadLetterStore } from './sqlite-dead-letter-store';

deadLetterStoreContract(
  'SQLite',
  async () => new SqliteDeadLetterStore(join(mkdtempSync(join(tmpdir(), 'dead-letters-')), 'events.sqlite')),
);
