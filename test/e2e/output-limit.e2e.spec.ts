import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * An output may be its rows' frame (every field's name and a null on every row) plus MAX_OUTPUT_RATIO times its source,
 * and always as large as MAX_UPLOAD_BYTES (apps/output/src/output-limit.ts). Here the ratio is 1 and the upload limit
 * small: an output of the file as it is, names and all, fits; a reviewer's fix that makes every note 10,000 characters
 * long does not.
 */
describe('the output limit', () => {
  const FIELDS = {
    email: { description: 'E-mail', data_type: 'email', is_required: true },
    note: { description: 'Note', data_type: 'string', is_required: false },
  };
  const MAPPING = { email: 'E-mail', note: 'Note' };
  const CSV = ['E-mail,Note', ...Array.from({ length: 200 }, (_, i) => `p${i}@x.org,a`)].join('\n');
  let svc: Service;
  let dataDir: string;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'output-limit-'));
    svc = await startService({ MAX_UPLOAD_BYTES: '4000', MAX_OUTPUT_RATIO: '1' }, dataDir);
    org = await setupOrganization(svc, FIELDS);
  });
  afterAll(() => svc.stop());

  async function approvedRun(fix: unknown = null) {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv' },
    });
    expect(run.status).toBe(201);
    expect((await upload(run.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    if (fix) expect((await review.fix('note', fix)).status).toBe(200);
    expect((await review.approve()).status).toBe(200);
    return waitForRun(svc, org.apiKey, run.body.id, (r) => r.terminal === true);
  }

  it("an output within it is written as ever, though its JSON is several times its file (the names on every row are the frame's)", async () => {
    const done = await approvedRun();
    expect(done).toMatchObject({ status: 'completed', stage: 'final', error: null });
    const output = await (await fetch(done.download_url)).text();
    expect(JSON.parse(output)[199]).toEqual({ email: 'p199@x.org', note: 'a' });
    expect(output.length).toBeGreaterThan(4000);
    expect(output.length).toBeGreaterThan(2 * CSV.length);
  });

  it('a fix that lengthens every value past it fails the run with output_too_large, names the limit, and leaves no file behind', async () => {
    const failed = await approvedRun({ kind: 'replace', find: 'a', replace: 'n'.repeat(10_000), whole_value: true });
    expect(failed).toMatchObject({
      status: 'failed',
      download_url: null,
      error: {
        code: 'output_too_large',
        type: 'limit',
        stage: 'final_processing',
        retryable: false,
        context: [expect.stringMatching(/^max \d+ bytes$/)],
      },
    });
    // Neither the output nor a piece of it, nor a temporary file: only the run's source is left.
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const blobs = files(join(dataDir, 'blobs'));
    const ofRun = blobs.filter((f) => f.includes(failed.id)).map((f) => basename(f));
    expect(ofRun).toContain('source');
    expect(ofRun.filter((name) => name.startsWith('output'))).toEqual([]);
    expect(blobs.filter((f) => !f.includes('/objects/'))).toEqual([]);
  });
});
