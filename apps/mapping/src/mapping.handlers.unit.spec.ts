import { AiProviders } from '@app/ai-providers';
import { BLOB_STORE } from '@app/blob-storage';
import { APP_CONFIG } from '@app/config';
import { HISTORY, created } from '@app/domain/testing/run-history.fixtures';
import { DIRECTORY, type RememberedMapping } from '@app/directory';
import { deterministicId } from '@app/run-commands';
import { RunEventTestBed } from '../../../test/support/run-event-test-bed';
import { MappingHandlers } from './mapping.handlers';

describe('MappingHandlers (given / when / then)', () => {
  let bed: RunEventTestBed;
  /** The directory's remembered mappings: one per organization, schema and headers key. */
  let remembered: Map<string, RememberedMapping>;
  const directory = {
    findRememberedMapping: async (org: string, schema: string, key: string) => remembered.get(`${org}/${schema}/${key}`) ?? null,
    rememberMapping: async (m: RememberedMapping) => {
      remembered.set(`${m.organization_id}/${m.schema_id}/${m.headers_key}`, m);
    },
  };
  beforeEach(async () => {
    remembered = new Map();
    bed = await RunEventTestBed.create({
      controllers: [MappingHandlers],
      providers: [
        { provide: APP_CONFIG, useValue: { reviewTtlSeconds: 3600 } },
        // Runs without a provider use none of these: any call would throw (no methods).
        { provide: BLOB_STORE, useValue: {} },
        { provide: DIRECTORY, useValue: directory },
        { provide: AiProviders, useValue: {} },
      ],
    });
  });

  it('given a parsed run, when SourceParsed arrives, then the review is prepared with the heuristic mapping and a deadline', async () => {
    const stream = await bed.given('r1', HISTORY.parsed);
    const before = Date.now();
    await bed.when('mapping', stream[2]);
    const [prepared, ...rest] = await bed.decidedAfter('r1', 2);
    expect(rest).toEqual([]);
    expect(prepared).toEqual({
      type: 'ReviewPrepared',
      data: {
        mapping_rule: { email: 'E-mail', name: 'Full name' },
        mapping_origin: 'heuristic',
        review_expires_at: expect.any(String),
        prepared_at: expect.any(String),
      },
    });
    const data = prepared.data as { review_expires_at: string; prepared_at: string };
    expect(Date.parse(data.review_expires_at) - Date.parse(data.prepared_at)).toBe(3600 * 1000);
    expect(Date.parse(data.prepared_at)).toBeGreaterThanOrEqual(before - 1);
  });

  it('the appended event carries the organization, the correlation and the cause, and an id derived from the event it answers', async () => {
    const stream = await bed.given('r1', HISTORY.parsed);
    await bed.when('mapping', stream[2]);
    const [appended] = await bed.appendedAfter('r1', 2);
    expect(appended).toEqual({
      event_id: deterministicId(`${stream[2].event_id}/review-prepared/PrepareReview/0`),
      type: 'ReviewPrepared',
      data: expect.objectContaining({ mapping_origin: 'heuristic' }),
      stream_id: 'run-r1',
      revision: 3,
      position: stream[2].position + 1,
      recorded_at: expect.any(String),
      metadata: {
        organization_id: 'o1',
        correlation_id: 'req-1',
        causation_id: stream[2].event_id,
        occurred_at: expect.any(String),
        schema_version: 1,
      },
    });
  });

  it('given an approved run of a file, when ReviewApproved arrives, then its mapping is remembered; the next file with the same headers gets it, noticed', async () => {
    const stream = await bed.given('r1', HISTORY.approved);
    await bed.when('mapping', stream.at(-1)!);
    const [kept] = [...remembered.values()];
    expect(kept).toMatchObject({ organization_id: 'o1', run_id: 'r1', mapping_rule: expect.any(Object), picklists: {} });
    // Another run of the organization and schema, the same headers: the remembered mapping, not the heuristic.
    kept.mapping_rule = { email: 'Full name', name: null };
    const next = await bed.given('r2', HISTORY.parsed);
    await bed.when('mapping', next[2]);
    const [prepared] = await bed.decidedAfter('r2', 2);
    expect(prepared.data).toMatchObject({
      mapping_rule: { email: 'Full name', name: null },
      mapping_origin: 'remembered',
      notices: [expect.objectContaining({ code: 'mapping_remembered' })],
    });
  });

  it("given a header choice remembered with a mapping, when the caller said otherwise whether the file has a header, then the caller's answer stands and the mapping is not applied", async () => {
    const approved = await bed.given('r1', HISTORY.approved);
    await bed.when('mapping', approved.at(-1)!);
    const [kept] = [...remembered.values()];
    // The same headers, remembered as read without a header row (a reviewer unticked it).
    kept.input_has_header = false;
    kept.mapping_rule = { email: 'column_1', name: 'column_2' };
    const [, uploaded, parsed] = HISTORY.parsed;
    const said = await bed.given('r2', [created({ input_has_header: true }), uploaded, parsed]);
    await bed.when('mapping', said[2]);
    const [prepared] = await bed.decidedAfter('r2', 2);
    expect(prepared.data).toMatchObject({ mapping_rule: { email: 'E-mail', name: 'Full name' }, mapping_origin: 'heuristic' });
    expect(prepared.data).not.toHaveProperty('header');
    expect((prepared.data as { notices?: { code: string }[] }).notices ?? []).not.toContainEqual(
      expect.objectContaining({ code: 'mapping_remembered' }),
    );
  });

  it('when SourceParsed is delivered again after the review was prepared, then nothing more is appended', async () => {
    const stream = await bed.given('r1', HISTORY.reviewActive);
    await bed.when('mapping', stream[2]);
    expect(await bed.decidedAfter('r1', 3)).toEqual([]);
  });
});
