import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readModelContract } from '../testing/read-model.contract';
import { SqliteReadModel } from './sqlite-read-model';

readModelContract('SQLite', async () => new SqliteReadModel(join(mkdtempSync(join(tmpdir(), 'rm-')), 'read.sqlite')));

describe('SQLite read model upgrades', () => {
  it('gives documents written before the retention columns existed their columns, from their body', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rm-old-')), 'read.sqlite');
    const old = new Database(file);
    old.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, revision INTEGER NOT NULL, doc TEXT NOT NULL,
      webhook_due_at TEXT, upload_watch_until TEXT)`);
    const doc = { id: 'old-1', organization_id: 'o', revision: 4, status: 'completed', stage: 'review', review_state: 'canceled' };
    old
      .prepare('INSERT INTO runs (id, organization_id, revision, doc) VALUES (?, ?, ?, ?)')
      .run('old-1', 'o', 4, JSON.stringify({ ...doc, review_canceled_at: '2026-01-01T00:00:00.000Z' }));
    old.close();
    const rm = new SqliteReadModel(file);
    expect(await rm.listFilesToPurge('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 10)).toEqual(['old-1']);
    await rm.close();
  });

  it('gives documents written before the search terms were stored their terms, from their body', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rm-old-')), 'read.sqlite');
    const old = new Database(file);
    old.exec('CREATE TABLE runs (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, revision INTEGER NOT NULL, doc TEXT NOT NULL)');
    const doc = { id: 'old-1', organization_id: 'o', revision: 4, status: 'completed', created_at: '2026-01-01T00:00:00.000Z' };
    old
      .prepare('INSERT INTO runs (id, organization_id, revision, doc) VALUES (?, ?, ?, ?)')
      .run('old-1', 'o', 4, JSON.stringify({ ...doc, filename: 'a.csv', metadata: { note: 'say "hi"' } }));
    old.close();
    const rm = new SqliteReadModel(file);
    const found = async (q: string) => (await rm.listRuns('o', { q }, 0, 10)).items.map((r) => r.id);
    expect(await found('say "hi')).toEqual(['old-1']);
    expect(await found('NOTE')).toEqual(['old-1']);
    expect(await found('{')).toEqual([]);
    await rm.close();
  });

  it("searches an organization's runs from the run list's index, which holds the terms, not from the documents", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rm-old-')), 'read.sqlite');
    await new SqliteReadModel(file).close();
    const db = new Database(file);
    // As a release before it left the file: the run list's index without the terms.
    db.exec('DROP INDEX runs_org_created_terms; CREATE INDEX runs_org_created ON runs (organization_id, created_at, id)');
    db.close();
    const rm = new SqliteReadModel(file);
    await rm.close();
    const reopened = new Database(file);
    const indexes = reopened
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'runs_org_created%'")
      .all()
      .map((i) => i.name);
    expect(indexes).toEqual(['runs_org_created_terms']);
    // The count of a search is answered from the index alone (no document read); the page reads only the rows it keeps.
    const where = "organization_id = 'o' AND EXISTS (SELECT 1 FROM json_each(search_terms) WHERE instr(value, 'x') > 0)";
    const plan = (sql: string) =>
      reopened
        .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((r) => r.detail)
        .join(' | ');
    expect(plan(`SELECT count(*) FROM runs WHERE ${where}`)).toContain('USING COVERING INDEX runs_org_created_terms');
    expect(plan(`SELECT doc FROM runs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 20`)).toContain(
      'USING INDEX runs_org_created_terms',
    );
    reopened.close();
  });
});

describe('SQLite read model shared by two processes', () => {
  it('reads for display what the other connection wrote since, even at the same revision', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rm-two-')), 'read.sqlite');
    const reader = new SqliteReadModel(file);
    const writer = new SqliteReadModel(file);
    const run = { id: 'r-1', organization_id: 'o', revision: 3, status: 'processing' } as unknown as Parameters<typeof writer.saveRun>[0];
    await writer.saveRun(run, { name: 'runs', position: 1 });
    expect(await reader.getRunView('r-1')).toMatchObject({ status: 'processing' });
    await writer.saveRun({ ...run, status: 'completed' }, { name: 'runs', position: 2 });
    expect(await reader.getRunView('r-1')).toMatchObject({ status: 'completed' });
    await Promise.all([reader.close(), writer.close()]);
  });
});
