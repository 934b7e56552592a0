import { Logger } from '@nestjs/common';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { runStreamId, type StoredEvent } from '@app/contracts';
import { SqliteDeadLetterStore } from '@app/dead-letters';
import { SqliteEventStore } from '@app/event-store';
import { SqliteReadModel } from '@app/read-model';
import { rebuildReadModel } from '../../apps/cli/src/operator/rebuild-read-model';
import { call, eventually, setupOrganization, startService, type Service } from '../support/service-harness';

/**
 * A hand-made event that breaks its contract, appended to one run's stream beside good runs of the same and of another
 * organization (a probe's finding: `"schema": 42` in a RunCreated, or `null`, answered 500 for the organization's whole
 * run list, and readmodel:rebuild did not repair it). Only its own run is touched (docs/decisions.md, "A malformed event
 * in a run's stream").
 */
describe('a malformed event in one run stream', () => {
  let svc: Service;
  let store: SqliteEventStore;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let other: Awaited<ReturnType<typeof setupOrganization>>;
  const good: string[] = [];
  const otherRuns: string[] = [];
  let failedRun: string; // a good RunCreated, then an event whose payload breaks its contract
  let neverCreated: string; // a RunCreated whose payload breaks its contract
  let unknownTyped: string; // a good run, then an event of a type this release does not know
  let notJson: string; // a good RunCreated, then a row whose data is not JSON at all (written by hand)
  let after: string; // created once the row that is not JSON was written: the pipeline went on past it
  let notJsonPosition: number;
  let nullMetadata: string; // a good RunCreated, then a row whose metadata is the JSON text null (written by hand)
  const errors: string[] = [];
  let badPosition: number;

  const create = async (o: typeof org) => {
    const res = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: o.apiKey,
      body: { schema_id: o.schemaId, filename: 'a.csv' },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const append = async (runId: string, type: string, data: unknown, like: StoredEvent, expected: number | 'no_stream') => {
    const result = await store.appendToStream(
      runStreamId(runId),
      [{ event_id: randomUUID(), type, data, metadata: like.metadata }],
      expected,
    );
    return result.position;
  };
  const list = (query = '', token = org.apiKey) => call(`${svc.baseUrl}/v1/transformations${query}`, { token });
  const show = (id: string, token = org.apiKey) => call(`${svc.baseUrl}/v1/transformations/${id}`, { token });

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
    svc = await startService();
    org = await setupOrganization(svc);
    other = await setupOrganization(svc);
    for (let i = 0; i < 3; i++) good.push(await create(org));
    failedRun = await create(org);
    unknownTyped = await create(org);
    notJson = await create(org);
    nullMetadata = await create(org);
    for (let i = 0; i < 2; i++) otherRuns.push(await create(other));
    store = new SqliteEventStore(join(svc.config.dataDir, 'events.sqlite'), 50);

    const created = (await store.readStream(runStreamId(failedRun)))[0];
    neverCreated = randomUUID();
    // The probe's event: a RunCreated whose schema is a number (and one field null that the list's resource reads).
    await append(
      neverCreated,
      'RunCreated',
      { ...(created.data as object), run_id: neverCreated, schema: 42, source_key: null },
      created,
      'no_stream',
    );
    badPosition = await append(failedRun, 'SourceUploaded', { size_bytes: 'large', uploaded_at: 42 }, created, 0);
    await append(unknownTyped, 'RunArchived', { archived_at: 'now' }, created, 0);
    // appendToStream writes JSON only: this row goes in as a hand or a damaged disk would put it.
    const raw = new Database(join(svc.config.dataDir, 'events.sqlite'));
    try {
      const like = (await store.readStream(runStreamId(notJson)))[0];
      notJsonPosition = Number(
        raw
          .prepare('INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(
            runStreamId(notJson),
            1,
            randomUUID(),
            'SourceUploaded',
            '{"size_bytes": 12, "uploaded',
            JSON.stringify(like.metadata),
            new Date().toISOString(),
          ).lastInsertRowid,
      );
      // Good data, metadata `null`: every consumer reads members of the metadata before any check.
      raw
        .prepare('INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(
          runStreamId(nullMetadata),
          1,
          randomUUID(),
          'SourceUploaded',
          JSON.stringify({ size_bytes: 12, uploaded_at: new Date().toISOString() }),
          'null',
          new Date().toISOString(),
        );
    } finally {
      raw.close();
    }
    after = await create(org);
  });
  afterAll(async () => {
    await store?.close();
    await svc?.stop();
    jest.restoreAllMocks();
  });

  it('fails its own run with a clear error, once the projector gave up on the event (a dead letter)', async () => {
    const failed = await eventually(
      () => show(failedRun),
      (r) => r.body.status === 'failed',
      20_000,
    );
    expect(failed.status).toBe(200);
    expect(failed.body.error).toMatchObject({ code: 'transformation_processing_failed', retryable: false });
    const letters = new SqliteDeadLetterStore(join(svc.config.dataDir, 'events.sqlite'));
    try {
      const letter = (await letters.list(100)).find((l) => l.group === 'projector' && l.event.position === badPosition);
      expect(letter?.error).toMatchObject({ name: 'MalformedRunEventError' });
      expect(letter?.error.message).toContain('data/size_bytes must be number');
    } finally {
      await letters.close();
    }
    // Loud: an error line naming the stream, the position and what was wrong.
    expect(errors).toContainEqual(
      expect.stringMatching(new RegExp(`run-${failedRun}.*position ${badPosition}.*SourceUploaded.*data/size_bytes must be number`)),
    );
    // The store keeps the event as it was written.
    const stream = await store.readStream(runStreamId(failedRun));
    expect(stream[1]).toMatchObject({ type: 'SourceUploaded', position: badPosition, data: { size_bytes: 'large', uploaded_at: 42 } });
  });

  it('fails the run of a row that is not JSON the same way, and the pipeline goes on past it', async () => {
    const failed = await eventually(
      () => show(notJson),
      (r) => r.body.status === 'failed',
      20_000,
    );
    expect(failed.body.error).toMatchObject({ code: 'transformation_processing_failed', retryable: false });
    const letters = new SqliteDeadLetterStore(join(svc.config.dataDir, 'events.sqlite'));
    try {
      const letter = (await letters.list(100)).find((l) => l.group === 'projector' && l.event.position === notJsonPosition);
      expect(letter?.error.message).toContain('SourceUploaded: data must be object');
    } finally {
      await letters.close();
    }
    // The run created after the row was read by every consumer past it.
    const later = await eventually(
      () => show(after),
      (r) => r.status === 200,
      10_000,
    );
    expect(later.body).toMatchObject({ id: after, status: 'awaiting_upload' });
    // Its own stream still reads, the row as its text.
    expect((await store.readStream(runStreamId(notJson)))[1]).toMatchObject({
      position: notJsonPosition,
      data: '{"size_bytes": 12, "uploaded',
    });
    // A row whose metadata is `null` fails its run alike; the run's failure still names its organization.
    await eventually(
      () => show(nullMetadata),
      (r) => r.body.status === 'failed',
      20_000,
    );
    const stream = await store.readStream(runStreamId(nullMetadata));
    expect(stream[1].metadata).toBe('null');
    const runFailed = stream.find((e) => e.type === 'RunFailed')!;
    expect(runFailed.metadata).toMatchObject({ organization_id: org.orgId, correlation_id: stream[1].event_id });
    const notJsonFailed = (await store.readStream(runStreamId(notJson))).find((e) => e.type === 'RunFailed')!;
    expect(notJsonFailed.metadata.organization_id).toBe(org.orgId);
  });

  it('lists every other run of both organizations, paging intact; the run never created is not shown', async () => {
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.meta.total).toBe(8);
    expect(all.body.data.map((r: { id: string }) => r.id).sort()).toEqual(
      [...good, failedRun, unknownTyped, notJson, nullMetadata, after].sort(),
    );
    const pages = [1, 2, 3, 4].map((n) => list(`?per_page=2&page=${n}`));
    expect((await Promise.all(pages)).map((p) => p.status)).toEqual([200, 200, 200, 200]);
    const pageIds = (await Promise.all(pages)).flatMap((p) => p.body.data.map((r: { id: string }) => r.id));
    expect(pageIds).toEqual(all.body.data.map((r: { id: string }) => r.id));
    expect((await pages[0]).body.meta).toMatchObject({ total: 8, last_page: 4 });
    const others = await list('', other.apiKey);
    expect(others.body.data.map((r: { id: string }) => r.id).sort()).toEqual([...otherRuns].sort());
    for (const id of good) expect((await show(id)).body).toMatchObject({ id, status: 'awaiting_upload' });
    // An event of a type this release does not know changes nothing it tracks (docs/events.md, versioning).
    expect((await show(unknownTyped)).body).toMatchObject({ id: unknownTyped, status: 'awaiting_upload' });
    const missing = await show(neverCreated);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    expect(errors).toContainEqual(expect.stringMatching(new RegExp(`run-${neverCreated}.*RunCreated.*data/schema must be object`)));
  });

  it('readmodel:rebuild completes, reports the malformed events, and repairs a document written from one', async () => {
    const readModel = new SqliteReadModel(join(svc.config.dataDir, 'read-model.sqlite'));
    try {
      // What a projector before this fix wrote from the probe's RunCreated: the document that broke the list.
      const broken = { ...(await readModel.getRun(good[0]))!, id: neverCreated, schema: null, source_key: null, revision: 0 };
      await readModel.saveRun(broken as never, { name: 'runs', position: 1 });
      expect((await list()).status).toBe(500);

      const report = await rebuildReadModel(store, readModel);
      // One report per malformed event, in the order the runs were first written.
      expect(report.malformed.map((m) => [m.stream_id, m.revision, m.type])).toEqual([
        [runStreamId(failedRun), 1, 'SourceUploaded'],
        [runStreamId(notJson), 1, 'SourceUploaded'],
        [runStreamId(nullMetadata), 1, 'SourceUploaded'],
        [runStreamId(neverCreated), 0, 'RunCreated'],
      ]);
      expect(report.malformed[2].problem).toBe('metadata is not a JSON object');
      expect(report.malformed[1]).toMatchObject({ position: notJsonPosition, problem: 'data must be object' });
      expect(report.malformed[0]).toMatchObject({
        position: badPosition,
        problem: expect.stringContaining('data/size_bytes must be number'),
      });
      expect(report.removed).toEqual([neverCreated]);
      expect(report.runs).toBe(10);
      expect((await list()).body.meta.total).toBe(8);
      expect((await show(failedRun)).body.status).toBe('failed');
      // Idempotent: nothing left to change.
      const again = await rebuildReadModel(store, readModel);
      expect([again.changed, again.removed]).toEqual([[], []]);
    } finally {
      await readModel.close();
    }
  });
});
