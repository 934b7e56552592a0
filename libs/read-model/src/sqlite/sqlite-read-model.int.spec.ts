import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readModelContract } from '../testing/read-model.contract';
import { SqliteReadModel } from './sqlite-read-model';

readModelContract('SQLite', async () => new SqliteReadModel(join(mkdtempSync(join(tmpdir(), 'rm-')), 'read.sqlite')));
